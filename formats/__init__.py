"""How the project's files write terrain and fields: the lowest part of the data layer, shared by
the packaged map data (`maps`) and scenario files (`scenario`). Imports only the engine."""
