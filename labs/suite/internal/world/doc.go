// Package world is the fakeapi server the reflector, informer and
// controller suites run against: ConfigMaps in namespace "ns", a client
// that writes without watch events, and the helpers the suites share.
package world
