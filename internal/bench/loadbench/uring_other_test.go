//go:build !linux

package main

import "testing"

func uringAvailable(*testing.T) bool { return false }
