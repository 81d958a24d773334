//go:build labs_reference

package grade

// referenceBuild: the labs are built with the reference implementation
// wired in, so Lab demands a full score.
const referenceBuild = true
