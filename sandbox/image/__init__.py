"""The sandbox image: its Dockerfile, the build-context assembly, and the scripts that give an
offline host a Docker engine and a locally made base image."""
