; Symbols and references for ruby (see the capture roles in ../languages.go).
(class name: [(constant) (scope_resolution)] @name (superclass)? (body_statement)? @body) @def.class
(module name: [(constant) (scope_resolution)] @name (body_statement)? @body) @def.module
(method name: (_) @name (body_statement)? @body) @def.function
(singleton_method name: (_) @name (body_statement)? @body) @def.function

; References: identifiers in call, type, selector and constructor positions.
(call method: (identifier) @ref)
(constant) @ref
