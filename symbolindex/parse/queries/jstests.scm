; Test suites and cases (mocha, jest, jasmine, vitest, node:test), for
; JavaScript, TypeScript and TSX: describe('…', fn) (or context, suite,
; their x and f variants) is a module that qualifies the it('…', fn),
; test('…', fn), specify('…', fn) cases inside it; the string is the name.
; A member form (describe.only, it.skip, test.concurrent.only) is the
; same. (A table's, describe.each(table)('…', fn), is not: measured, the
; zod golden case email-plus-sign lost its answer to the statistics of
; the new symbols.) The names and roles are jsTestCalls (../languages.go).
(expression_statement (call_expression function: [(identifier) @_fn (member_expression object: [(identifier) @_fn (member_expression object: (identifier) @_fn)])] arguments: (arguments . (string (string_fragment) @name) . [(function_expression body: (_) @body) (arrow_function body: (_) @body)])) @def.module (#test-call? @_fn "suite"))
(expression_statement (call_expression function: [(identifier) @_fn (member_expression object: [(identifier) @_fn (member_expression object: (identifier) @_fn)])] arguments: (arguments . (string (string_fragment) @name) . [(function_expression body: (_) @body) (arrow_function body: (_) @body)])) @def.function (#test-call? @_fn "case"))
