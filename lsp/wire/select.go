package wire

import (
	"context"
	"errors"

	"github.com/ctxls/ctxls/workspace"
)

// Options are what differs between the callers of Select: the LSP server,
// the MCP tools and the command line.
type Options struct {
	// UTF8 gives positions in UTF-8 bytes, as an LSP client may negotiate;
	// otherwise they are in UTF-16 code units.
	UTF8 bool
	// Reembedded reports stats.reembedded (the LSP server's counter).
	Reembedded bool
}

// Select is the one entry of a selection for every client: the wire
// request is converted and validated once, the workspace selects on its
// own snapshot (released before Select returns), and the answer comes
// back as the wire's result. A problem with the request is a
// *workspace.ParamError naming the wire field ("activeUri", "pinned[1]",
// "limit"); each client names it in its own terms. Other errors are the
// workspace's (ctx's when cancelled).
func Select(ctx context.Context, ws *workspace.Workspace, req *Request, opts Options) (*Result, error) {
	sreq, err := SelectRequest(req)
	if err != nil {
		return nil, err
	}
	sel, err := ws.Select(ctx, sreq)
	if err != nil {
		return nil, wireField(err)
	}
	res := FromSelection(sel, opts.UTF8)
	if opts.Reembedded {
		n := sel.Stats.Reembedded // the snapshot's, not read after it was released
		res.Stats.Reembedded = &n
	}
	return res, nil
}

// wireField renames the workspace's field in a *workspace.ParamError to
// the wire's ("active" is "activeUri"); other errors pass through.
func wireField(err error) error {
	if pe, ok := errors.AsType[*workspace.ParamError](err); ok && pe.Field == "active" {
		return &workspace.ParamError{Field: "activeUri", Msg: pe.Msg}
	}
	return err
}
