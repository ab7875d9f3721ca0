; Symbols and references for c (see the capture roles in ../languages.go).
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)))
  ]
  body: (compound_statement) @body) @def.function
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  ]) @def.proto
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @def.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @def.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(preproc_def name: (identifier) @name value: (preproc_arg)) @def.const
(preproc_function_def name: (identifier) @name) @def.function

; References: identifiers in call, type, selector and constructor positions.
(type_identifier) @ref
(call_expression function: (identifier) @ref)
(field_expression field: (field_identifier) @ref)
