package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Git runs the git command on one repository, as every git command ctxls
// runs (history and replay) is run: in Dir (git -C), with GitEnv's
// environment (objects only, never a fetch), the settings of the user's
// that change what git writes pinned (pinned), and a failure said in one
// line: the command,
// its exit and git's last line on its standard error; ErrNoGit when there
// is no git to run.
type Git struct {
	Dir string
	// Hook, when set, is called with each command's arguments before it
	// starts: a test counts the runs with it, or acts between them.
	Hook func(args []string)
}

// pinned are the settings every command runs with, whatever the user's
// configuration says:
//   - core.quotePath=false: paths as they are, not quoted octal;
//   - log.showSignature=false: a user who signs may set it, and git log
//     would then run gpg for every signed commit and write what it says
//     before the commit's own lines (replay took "gpg:" for a parent);
//   - diff.relative=false: with it, a diff run in a subdirectory names
//     paths relative to it, and the hunks of a subdirectory's history
//     matched none of its files;
//   - diff.interHunkContext=0: with it, hunks a few lines apart are fused
//     and the lines between written as context, which the reading of a
//     hunk's removed and added lines stops at;
//   - diff.submodule=short: with log (or diff), a submodule's change is
//     its commits (or its files' diffs), not one "diff --git", and the
//     diffs after it were taken for the files before (hunks.go reads them
//     in the order of the raw lines);
//   - log.showRoot=true: with false, git log shows the first commit with
//     no files.
var pinned = []string{"-c", "core.quotePath=false", "-c", "log.showSignature=false", "-c", "diff.relative=false", "-c", "diff.interHunkContext=0",
	"-c", "diff.submodule=short", "-c", "log.showRoot=true"}

// ErrNoGit is the error of a git command when git is not installed.
var ErrNoGit = fmt.Errorf("%w: git is not installed", ErrNoHistory)

// Command is git with args, to be started by the caller (a long-lived
// git cat-file --batch): see Fail for its errors.
func (g Git) Command(ctx context.Context, args ...string) *exec.Cmd {
	if g.Hook != nil {
		g.Hook(args)
	}
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"-C", g.Dir}, pinned...), args...)...)
	cmd.Env = GitEnv()
	return cmd
}

// Fail is the error of the git command args, which failed with err (from
// starting or waiting for it) and wrote stderr: ErrNoGit without git,
// else one line naming git's last line on stderr. The context's error
// when ctx ended it.
func Fail(ctx context.Context, args []string, err error, stderr string) error {
	if errors.Is(err, exec.ErrNotFound) {
		return ErrNoGit
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	name := "git"
	if len(args) > 0 {
		name += " " + args[0]
	}
	if line := lastLine(stderr); line != "" {
		return fmt.Errorf("%s: %w: %s", name, err, line)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Output runs git with args and returns its standard output, also when it
// fails (a rev-parse says what it could before it stopped).
func (g Git) Output(ctx context.Context, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := g.Command(ctx, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, Fail(ctx, args, err, stderr.String())
	}
	return out, nil
}

// Stream runs git with args, stdin as its input ("": none), and parse on
// its standard output as git writes it.
func (g Git) Stream(ctx context.Context, args []string, stdin string, parse func(*bufio.Reader) error) error {
	cmd := g.Command(ctx, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return Fail(ctx, args, err, "")
	}
	perr := parse(bufio.NewReaderSize(out, 1<<20))
	if perr != nil {
		io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return Fail(ctx, args, err, stderr.String())
	}
	return perr
}

// lastLine is the last line of git's standard error that says something.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
