"""One random source for the CUDA reference and the emulated device: CUDA's Philox sampling for
`rand`/`randn`/`normal_`/`uniform_`/`randint`, and a per-device CPU stream for the rest.

Importing this package installs nothing; each runtime wires it in at activation.
"""
