package parse

// The records of a Go file, read by one walk of the tree in C instead of
// running queries/go.scm through tree-sitter's query cursor. The cursor
// costs more per node than the whole walk (it works out each node's field
// and sibling status and advances its pattern states at every node): on
// 1,418 Go files it was a fifth of a cold index's CPU, the walk under half
// of that. The walk yields the records the query gives, in the same order
// where order counts (references); TestGoWalkMatchesQuery compares the
// two on every Go file of this repository, whole and cut short: go.scm
// and the walk change together. Edits of an open document (ParseEdit)
// still run the query.
//
// The walk reads the tree through tree-sitter's C API, linked from
// go-tree-sitter's own copy; TSNode and TSTreeCursor are declared as
// tree-sitter's api.h (language version 14) declares them, and the root
// node is go-tree-sitter's Node's first field.

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct TSTree TSTree;
typedef struct TSLanguage TSLanguage;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

TSTreeCursor ts_tree_cursor_new(TSNode node);
void ts_tree_cursor_delete(TSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *self);
uint16_t ts_node_symbol(TSNode self);
bool ts_node_is_named(TSNode self);
uint32_t ts_node_start_byte(TSNode self);
uint32_t ts_node_end_byte(TSNode self);
const TSLanguage *ts_tree_language(const TSTree *self);
uint16_t ts_language_symbol_for_name(const TSLanguage *self, const char *string, uint32_t length, bool is_named);
uint16_t ts_language_field_id_for_name(const TSLanguage *self, const char *name, uint32_t name_length);

// The node kinds and fields the walk looks for.
enum {
	S_FUNC, S_METHOD, S_IDENT, S_FIELD_IDENT, S_TYPE_IDENT, S_BLOCK, S_PARAMS, S_PARAM,
	S_TYPE_SPEC, S_TYPE_ALIAS, S_STRUCT, S_FIELDS, S_IFACE, S_TYPE_DECL, S_SOURCE,
	S_CONST_DECL, S_CONST_SPEC, S_VAR_DECL, S_VAR_SPEC, S_SELECTOR, S_CALL, S_N
};
static const char *sym_names[S_N] = {
	"function_declaration", "method_declaration", "identifier", "field_identifier", "type_identifier",
	"block", "parameter_list", "parameter_declaration", "type_spec", "type_alias", "struct_type",
	"field_declaration_list", "interface_type", "type_declaration", "source_file", "const_declaration",
	"const_spec", "var_declaration", "var_spec", "selector_expression", "call_expression",
};
enum { F_NAME, F_BODY, F_RECEIVER, F_TYPE, F_FIELD, F_FUNCTION, F_N };
static const char *field_names[F_N] = { "name", "body", "receiver", "type", "field", "function" };

typedef struct {
	uint16_t sym[S_N];
	uint16_t field[F_N];
	uint32_t *out;
	size_t cap, n; // words written (n may pass cap: the count a retry needs)
	uint16_t *stack; // the symbols of the current node's ancestors
	size_t depth, stack_cap;
	bool give_up; // memory ran out, or a record only the query can read
} walk;

static void put(walk *w, const uint32_t *rec, size_t len) {
	if (w->n + len <= w->cap) memcpy(w->out + w->n, rec, len * sizeof(uint32_t));
	w->n += len;
}

static void put_def(walk *w, uint32_t pattern, TSNode def, TSNode name, bool has_body, TSNode body, bool has_recv, TSNode recv) {
	uint32_t rec[9] = {
		pattern, ts_node_start_byte(def), ts_node_end_byte(def),
		ts_node_start_byte(name), ts_node_end_byte(name),
		has_body, has_body ? ts_node_start_byte(body) : 0,
		has_recv ? ts_node_start_byte(recv) : 0, has_recv ? ts_node_end_byte(recv) : 0,
	};
	put(w, rec, 9);
}

// kids are a node's children, each with its field and symbol.
typedef struct { TSNode node; uint16_t field, sym; } kid;
typedef struct { kid *k; size_t n; kid local[16]; } kids;

static bool kids_of(kids *ks, TSNode n) {
	ks->k = ks->local, ks->n = 0;
	size_t cap = 16;
	TSTreeCursor c = ts_tree_cursor_new(n);
	for (bool ok = ts_tree_cursor_goto_first_child(&c); ok; ok = ts_tree_cursor_goto_next_sibling(&c)) {
		if (ks->n == cap) {
			kid *k = malloc(2 * cap * sizeof(kid));
			if (!k) { ts_tree_cursor_delete(&c); return false; }
			memcpy(k, ks->k, ks->n * sizeof(kid));
			if (ks->k != ks->local) free(ks->k);
			ks->k = k, cap *= 2;
		}
		TSNode node = ts_tree_cursor_current_node(&c);
		ks->k[ks->n++] = (kid){ node, ts_tree_cursor_current_field_id(&c), ts_node_symbol(node) };
	}
	ts_tree_cursor_delete(&c);
	return true;
}

static void kids_free(kids *ks) {
	if (ks->k != ks->local) free(ks->k);
}

// is: whether kid k has field f (0: any) and symbol s.
static bool is(const kid *k, uint16_t f, uint16_t s) {
	return (f == 0 || k->field == f) && k->sym == s;
}

// name_body emits, for each name: (name_sym) child of def from kids[from]
// on, its definition with the first body: (block) child after it:
//   name: (identifier) @name body: (block)? @body
static void name_body(walk *w, uint32_t pattern, TSNode def, const kids *ks, size_t from, uint16_t name_sym, bool has_recv, TSNode recv) {
	for (size_t i = from; i < ks->n; i++) {
		if (!is(&ks->k[i], w->field[F_NAME], name_sym)) continue;
		bool has_body = false;
		TSNode body = def;
		for (size_t j = i + 1; j < ks->n; j++) {
			if (is(&ks->k[j], w->field[F_BODY], w->sym[S_BLOCK])) {
				has_body = true, body = ks->k[j].node;
				break;
			}
		}
		put_def(w, pattern, def, ks->k[i].node, has_body, body, has_recv, recv);
	}
}

// visit reads the records of node n, whose symbol is s and parent's
// symbol parent, at cursor c.
static void visit(walk *w, TSTreeCursor *c, TSNode n, uint16_t s, uint16_t parent) {
	// References: (type_identifier) @ref,
	// (selector_expression field: (field_identifier) @ref),
	// (call_expression function: (identifier) @ref).
	uint32_t pat = 0;
	if (s == w->sym[S_TYPE_IDENT]) pat = 9;
	else if (s == w->sym[S_FIELD_IDENT] && parent == w->sym[S_SELECTOR] && ts_tree_cursor_current_field_id(c) == w->field[F_FIELD]) pat = 10;
	else if (s == w->sym[S_IDENT] && parent == w->sym[S_CALL] && ts_tree_cursor_current_field_id(c) == w->field[F_FUNCTION]) pat = 11;
	if (pat) {
		uint32_t rec[3] = { pat, ts_node_start_byte(n), ts_node_end_byte(n) };
		put(w, rec, 3);
		return;
	}
	if (s != w->sym[S_FUNC] && s != w->sym[S_METHOD] && s != w->sym[S_TYPE_SPEC] && s != w->sym[S_TYPE_ALIAS] &&
	    s != w->sym[S_TYPE_DECL] && s != w->sym[S_SOURCE]) return;
	kids ks;
	if (!kids_of(&ks, n)) { w->give_up = true; return; }
	if (s == w->sym[S_FUNC]) {
		// (function_declaration name: (identifier) @name body: (block)? @body) @def.function
		name_body(w, 0, n, &ks, 0, w->sym[S_IDENT], false, n);
	} else if (s == w->sym[S_METHOD]) {
		// (method_declaration
		//   receiver: (parameter_list (parameter_declaration type: (_) @receiver))
		//   name: (field_identifier) @name body: (block)? @body) @def.method
		for (size_t r = 0; r < ks.n; r++) {
			if (!is(&ks.k[r], w->field[F_RECEIVER], w->sym[S_PARAMS])) continue;
			kids ps;
			if (!kids_of(&ps, ks.k[r].node)) { w->give_up = true; break; }
			for (size_t p = 0; p < ps.n; p++) {
				if (!is(&ps.k[p], 0, w->sym[S_PARAM])) continue;
				kids ts;
				if (!kids_of(&ts, ps.k[p].node)) { w->give_up = true; break; }
				for (size_t t = 0; t < ts.n; t++) {
					if (ts.k[t].field == w->field[F_TYPE] && ts_node_is_named(ts.k[t].node))
						name_body(w, 1, n, &ks, r + 1, w->sym[S_FIELD_IDENT], true, ts.k[t].node);
				}
				kids_free(&ts);
			}
			kids_free(&ps);
		}
	} else if (s == w->sym[S_TYPE_SPEC] || s == w->sym[S_TYPE_ALIAS]) {
		// (type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @def.struct
		// (type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
		// (type_spec name: (type_identifier) @name) @def.type
		// (type_alias name: (type_identifier) @name) @def.type
		for (size_t i = 0; i < ks.n; i++) {
			if (!is(&ks.k[i], w->field[F_NAME], w->sym[S_TYPE_IDENT])) continue;
			TSNode name = ks.k[i].node;
			if (s == w->sym[S_TYPE_ALIAS]) {
				put_def(w, 5, n, name, false, n, false, n);
				continue;
			}
			for (size_t j = i + 1; j < ks.n; j++) {
				if (is(&ks.k[j], w->field[F_TYPE], w->sym[S_STRUCT])) {
					kids fs;
					if (!kids_of(&fs, ks.k[j].node)) { w->give_up = true; break; }
					for (size_t f = 0; f < fs.n; f++) {
						if (is(&fs.k[f], 0, w->sym[S_FIELDS])) put_def(w, 2, n, name, true, fs.k[f].node, false, n);
					}
					kids_free(&fs);
				} else if (is(&ks.k[j], w->field[F_TYPE], w->sym[S_IFACE])) {
					put_def(w, 3, n, name, false, n, false, n);
				}
			}
			put_def(w, 4, n, name, false, n, false, n);
		}
	} else if (s == w->sym[S_TYPE_DECL]) {
		// (type_declaration [(type_spec) (type_alias)] @groupwrapped) @groupwrap
		for (size_t i = 0; i < ks.n; i++) {
			if (ks.k[i].sym != w->sym[S_TYPE_SPEC] && ks.k[i].sym != w->sym[S_TYPE_ALIAS]) continue;
			TSNode k = ks.k[i].node;
			uint32_t rec[5] = { 6, ts_node_start_byte(k), ts_node_end_byte(k), ts_node_start_byte(n), ts_node_end_byte(n) };
			put(w, rec, 5);
		}
	} else {
		// (source_file (const_declaration (const_spec name: (identifier) @name)) @def.const)
		// (source_file (var_declaration (var_spec name: (identifier) @name)) @def.var)
		for (size_t i = 0; i < ks.n; i++) {
			uint16_t spec_sym;
			uint32_t dp;
			if (ks.k[i].sym == w->sym[S_CONST_DECL]) dp = 7, spec_sym = w->sym[S_CONST_SPEC];
			else if (ks.k[i].sym == w->sym[S_VAR_DECL]) dp = 8, spec_sym = w->sym[S_VAR_SPEC];
			else continue;
			kids es;
			if (!kids_of(&es, ks.k[i].node)) { w->give_up = true; break; }
			for (size_t e = 0; e < es.n; e++) {
				if (es.k[e].sym != spec_sym) continue;
				kids fs;
				if (!kids_of(&fs, es.k[e].node)) { w->give_up = true; break; }
				// A spec of several names (const a, b = 1, 2) is left
				// to the query: which of its names the query's cursor
				// reports depends on how it merges its states.
				bool named = false;
				for (size_t f = 0; f < fs.n; f++) {
					if (!is(&fs.k[f], w->field[F_NAME], w->sym[S_IDENT])) continue;
					if (named) { w->give_up = true; break; }
					named = true;
					put_def(w, dp, ks.k[i].node, fs.k[f].node, false, n, false, n);
				}
				kids_free(&fs);
			}
			kids_free(&es);
		}
	}
	kids_free(&ks);
}

static bool push(walk *w, uint16_t s) {
	if (w->depth == w->stack_cap) {
		size_t cap = w->stack_cap ? 2 * w->stack_cap : 256;
		uint16_t *st = realloc(w->stack, cap * sizeof(uint16_t));
		if (!st) return false;
		w->stack = st, w->stack_cap = cap;
	}
	w->stack[w->depth++] = s;
	return true;
}

// ctxls_go_walk writes the records of the tree at root to out (cap
// words) and returns how many words they take (more than cap: call again
// with that much room); *give_up is set when memory ran out or the query
// must read the tree.
static size_t ctxls_go_walk(TSNode root, uint32_t *out, size_t cap, bool *give_up) {
	walk w = {0};
	const TSLanguage *lang = ts_tree_language(root.tree);
	for (int i = 0; i < S_N; i++) w.sym[i] = ts_language_symbol_for_name(lang, sym_names[i], strlen(sym_names[i]), true);
	for (int i = 0; i < F_N; i++) w.field[i] = ts_language_field_id_for_name(lang, field_names[i], strlen(field_names[i]));
	w.out = out, w.cap = cap;
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		uint16_t s = ts_node_symbol(n);
		visit(&w, &c, n, s, w.depth > 0 ? w.stack[w.depth - 1] : 0xffff);
		if (w.give_up) break;
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (!push(&w, s)) { w.give_up = true; break; }
			continue;
		}
		bool done = false;
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) { done = true; break; }
			w.depth--;
		}
		if (done) break;
	}
	*give_up = w.give_up;
	ts_tree_cursor_delete(&c);
	free(w.stack);
	return w.n;
}
*/
import "C"

import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// goWalkKinds are the definition kinds of go.scm's patterns by index (the
// walk's record tags); 6 is the group wrapper, 9–11 references.
var goWalkKinds = [9]defKind{defFunction, defMethod, defStruct, defInterface, defType, defType, 0, defConst, defVar}

// goWalk reads the records of the Go tree at root into p.rec, as collect
// would with go.scm. It reports false, having read nothing, when C memory
// ran out or the file declares a top-level const or var spec of several
// names (collect then runs the query).
func (p *Parser) goWalk(root *sitter.Node, src []byte) bool {
	node := *(*C.TSNode)(unsafe.Pointer(root)) // go-tree-sitter's Node starts with its TSNode
	for {
		var giveUp C.bool
		n := int(C.ctxls_go_walk(node, (*C.uint32_t)(unsafe.SliceData(p.walkBuf)), C.size_t(len(p.walkBuf)), &giveUp))
		if giveUp {
			return false
		}
		if n <= len(p.walkBuf) {
			p.rec.loadWalk(p.walkBuf[:n], src)
			return true
		}
		p.walkBuf = make([]uint32, n+n/4)
	}
}

// loadWalk appends the walk's records w to r.
func (r *records) loadWalk(w []uint32, src []byte) {
	for len(w) > 0 {
		switch tag := w[0]; {
		case tag >= 9: // a reference
			r.refs = append(r.refs, span{w[1], w[2]})
			w = w[3:]
		case tag == 6: // a type_spec in a type_declaration
			r.wraps = append(r.wraps, wrapRec{wrapped: span{w[1], w[2]}, wrap: wrapSpan{span: span{w[3], w[4]}, group: true}})
			w = w[5:]
		default:
			d := rawDef{
				kind: goWalkKinds[tag], pattern: uint16(tag), hasName: true, hasBody: w[5] != 0,
				start: w[1], end: w[2], origStart: w[1], name: span{w[3], w[4]}, bodyStart: w[6], recv: span{w[7], w[8]},
			}
			if d.end > d.start && d.end <= uint32(len(src)) {
				r.defs = append(r.defs, d)
			}
			w = w[9:]
		}
	}
}
