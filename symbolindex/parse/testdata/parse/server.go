// Package server runs the HTTP front end.
package server

import (
	"context"
	"fmt"
	"net/http"
)

// DefaultAddr is where Start listens when no address is given.
const DefaultAddr = ":8080"

// Limits on connections.
const (
	MaxConns = 100
	MaxIdle  = 10
)

var errClosed = fmt.Errorf("server closed")

// Server serves requests for one site.
// It is safe for concurrent use.
type Server[T any] struct {
	addr    string
	handler http.Handler
	state   T
}

type (
	// Handler handles one request.
	Handler interface {
		Serve(ctx context.Context, req *http.Request) error
	}
	ID    int
	Alias = string
)

// Start listens on the server's address
// and blocks until ctx is done.
//
//go:noinline
func (s *Server[T]) Start(ctx context.Context) error {
	done := func() bool { return ctx.Err() != nil }
	if done() {
		return errClosed
	}
	return http.ListenAndServe(s.addr, s.handler)
}

func (s Server[T]) Addr() string { return s.addr }

// New returns a Server for addr.
func New[T any](addr string,
	handler http.Handler) *Server[T] {
	return &Server[T]{addr: addr, handler: handler}
}
