package askuser

// Decode is decode, for the tests.
var Decode = decode
