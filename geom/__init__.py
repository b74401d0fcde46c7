"""tmg-geometry's engine: plain data classes for the table (`geom.model`) and one small module
per rule, named for what it decides (`elevation` and `sight` §7.1, `distance` §4.1–§4.2,
`engagement` §7.2, `movement` §4.3–§4.6 and §8.5.3, `coherency` §4.4, `charge` §8.7.7,
`close_combat` §8.8, `templates` §8.7.6 and §12.8, `markers` §8.9.1).

The engine knows nothing of files, the command line or windows.
"""
