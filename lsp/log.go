package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"
)

// mirrorLevel is the level from which log records are also sent to the
// client as window/logMessage.
const mirrorLevel = slog.LevelInfo

// teeHandler sends each record to the log writer's handler and, from
// mirrorLevel up, to the client.
type teeHandler struct {
	local  slog.Handler
	mirror *mirrorHandler
}

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.local.Enabled(ctx, l) || h.mirror.Enabled(ctx, l)
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.local.Enabled(ctx, r.Level) {
		err = h.local.Handle(ctx, r)
	}
	if h.mirror.Enabled(ctx, r.Level) {
		_ = h.mirror.Handle(ctx, r)
	}
	return err
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{h.local.WithAttrs(as), h.mirror.withAttrs(as)}
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{h.local.WithGroup(name), h.mirror.withGroup(name)}
}

// mirrorHandler formats records as one line ("msg key=value ...") and
// hands them to send, which forwards them to the client when it is
// connected.
type mirrorHandler struct {
	send   func(protocol.MessageType, string)
	prefix string // group prefix for attribute keys
	attrs  string // preformatted attributes from WithAttrs
}

func (h *mirrorHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= mirrorLevel }

func (h *mirrorHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.prefix, a)
		return true
	})
	typ := protocol.MessageTypeInfo
	switch {
	case r.Level >= slog.LevelError:
		typ = protocol.MessageTypeError
	case r.Level >= slog.LevelWarn:
		typ = protocol.MessageTypeWarning
	}
	h.send(typ, b.String())
	return nil
}

func (h *mirrorHandler) withAttrs(as []slog.Attr) *mirrorHandler {
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		appendAttr(&b, h.prefix, a)
	}
	return &mirrorHandler{send: h.send, prefix: h.prefix, attrs: b.String()}
}

func (h *mirrorHandler) withGroup(name string) *mirrorHandler {
	if name == "" {
		return h
	}
	return &mirrorHandler{send: h.send, prefix: h.prefix + name + ".", attrs: h.attrs}
}

func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			appendAttr(b, p, g)
		}
		return
	}
	s := a.Value.String()
	if strings.ContainsAny(s, " \t\n\"=") {
		s = fmt.Sprintf("%q", s)
	}
	b.WriteByte(' ')
	b.WriteString(prefix)
	b.WriteString(a.Key)
	b.WriteByte('=')
	b.WriteString(s)
}
