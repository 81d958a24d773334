package sharding

// IdentityFromHost exposes the default identity's rule to tests.
var IdentityFromHost = identityFromHost
