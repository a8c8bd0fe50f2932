"""The I/O shells: gRPC server, REST gateway, listeners, the process and the command."""
