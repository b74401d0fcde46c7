"""`tmg`, the command line: one entry point (`tmg.cli.main`) and one module per subcommand
(`tmg.commands`, loaded only when its command runs), each reading the scenario through
`scenario`, asking the engine (`geom`) and printing its answer as text or `--json`; `tmg serve`
answers the same commands over HTTP (`service`). The scenario format lives in `scenario`."""
