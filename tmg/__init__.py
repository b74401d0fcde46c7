"""The `tmg` command line and the scenario file format around the `geom` engine."""
