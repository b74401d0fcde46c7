"""tmg-geometry's engine: plain data classes for the table (`geom.model`) and one small module
per rule (`elevation` §2, `distance` §3, `sight` §4, `engagement` §5, `movement` §6,
`coherency` §7, `charge` §8, `close_combat` §9, `templates` §10, `markers` §11).

The engine knows nothing of files, the command line or windows.
"""
