// Package served finds which of the guarded kinds a cluster serves, and where: the resource, version
// and scope to list and watch each at. The audit (one pass) and the continuous audit share it.
package served
