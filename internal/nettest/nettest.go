// Package nettest gives tests network addresses with a known behaviour.
package nettest
