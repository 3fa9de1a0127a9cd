//go:build !linux

package main

// kstampClients need Linux's receive stamps, epoll and io_uring.
var kstampClients = map[string]func(rawURL string, streams int) (clientRun, error){}
