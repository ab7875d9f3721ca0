package lsp

import (
	"bytes"
	"sync/atomic"
	"time"
)

// TEMPORARY instrumentation (not to be committed).
var probe [8]atomic.Int64

func mark(i int) { probe[i].Store(time.Now().UnixNano()) }

func markFrame(frame []byte, i int) {
	if bytes.Contains(frame, []byte("ctxls/barrier")) {
		mark(i)
	}
}
