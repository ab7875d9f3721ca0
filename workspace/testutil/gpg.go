package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// StandInGPG writes a stand-in for gpg, for tests of repositories whose
// owner signs commits (commit.gpgSign) and asks git log to check the
// signatures (log.showSignature): it signs anything with a fixed
// signature, and each check it is asked for appends a line to checks,
// saying on stderr what gpg says. Set gpg.program to program.
func StandInGPG(t testing.TB) (program, checks string) {
	t.Helper()
	checks = filepath.Join(t.TempDir(), "checks")
	program = filepath.Join(t.TempDir(), "gpg")
	script := `#!/bin/sh
case "$*" in
*--verify*) echo "gpg: Signature made by a stand-in" >&2; echo x >> '` + checks + `'; exit 0 ;;
esac
cat >/dev/null
printf '%s\n' '-----BEGIN PGP SIGNATURE-----' '' 'c3RhbmQtaW4=' '-----END PGP SIGNATURE-----'
printf '\n[GNUPG:] SIG_CREATED D 1 8 00 1 X\n' >&2
`
	if err := os.WriteFile(program, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return program, checks
}
