package parse

/*
#include <stdint.h>

// The layout of tree-sitter's TSPoint and TSInputEdit (lib/include/tree_sitter/api.h).
typedef struct { uint32_t row; uint32_t column; } ctxls_point;
typedef struct {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	ctxls_point start_point;
	ctxls_point old_end_point;
	ctxls_point new_end_point;
} ctxls_input_edit;

// tree-sitter's own, compiled into github.com/smacker/go-tree-sitter.
void ts_tree_edit(void *self, const ctxls_input_edit *edit);
*/
import "C"

import (
	"runtime"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// editTree applies an edit to a tree: (*sitter.Tree).Edit would, but the
// binding passes the old end point as the new end point, and tree-sitter
// needs the points right (with them wrong, a Python edit that adds lines
// re-parses into a tree that differs from a parse from scratch). This
// calls ts_tree_edit itself, with the tree-sitter tree the binding keeps as
// the first field of BaseTree (github.com/smacker/go-tree-sitter at the
// version in go.mod; TestEditTree fails if that changes).
func editTree(t *sitter.Tree, e sitter.EditInput) {
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(t.BaseTree))
	ce := C.ctxls_input_edit{
		start_byte:    C.uint32_t(e.StartIndex),
		old_end_byte:  C.uint32_t(e.OldEndIndex),
		new_end_byte:  C.uint32_t(e.NewEndIndex),
		start_point:   C.ctxls_point{row: C.uint32_t(e.StartPoint.Row), column: C.uint32_t(e.StartPoint.Column)},
		old_end_point: C.ctxls_point{row: C.uint32_t(e.OldEndPoint.Row), column: C.uint32_t(e.OldEndPoint.Column)},
		new_end_point: C.ctxls_point{row: C.uint32_t(e.NewEndPoint.Row), column: C.uint32_t(e.NewEndPoint.Column)},
	}
	C.ts_tree_edit(ptr, &ce)
	runtime.KeepAlive(t)
}
