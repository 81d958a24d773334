// Package ctrlutil holds the few helpers that more than one package of the
// controller box needs and that belong to none of them: the kind of an
// object, a resource's name as kubectl prints it, and a sleep that ends with
// its context. It imports no project package.
package ctrlutil
