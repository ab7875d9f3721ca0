; Module-level functions shared by javascript, typescript and tsx (see the
; capture roles in ../languages.go).
; A module's main function written as an expression: export default
; guard && function name () {} (or an arrow in parentheses; "default" when
; it has no name), and a top-level call that defines one by a named
; function, defineGetter(req, 'host', function host () {}), unless it is
; a test framework's (jstests.scm). Else their lines, often the most of
; the file, are in no symbol.
(export_statement value: (binary_expression right: (function_expression name: (identifier) @name body: (_) @body))) @def.function
(export_statement value: (binary_expression right: (function_expression !name body: (_) @body))) @def.function
(export_statement value: (binary_expression right: (parenthesized_expression (arrow_function body: (_) @body)))) @def.function
(program (expression_statement (call_expression function: (identifier) @_fn arguments: (arguments (function_expression name: (identifier) @name body: (_) @body))) (#not-test-call? @_fn "any")) @def.function)
