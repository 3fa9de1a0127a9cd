package wire

// Supported: the raw-socket client works on this platform.
const Supported = true
