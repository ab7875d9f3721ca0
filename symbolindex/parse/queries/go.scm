; Symbols and references for go (see the capture roles in ../languages.go).
(function_declaration name: (identifier) @name body: (block)? @body) @def.function

(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name
  body: (block)? @body) @def.method

(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
(type_declaration [(type_spec) (type_alias)] @groupwrapped) @groupwrap

(source_file (const_declaration (const_spec name: (identifier) @name)) @def.const)
(source_file (var_declaration (var_spec name: (identifier) @name)) @def.var)

; References: identifiers in call, type, selector and constructor positions.
(type_identifier) @ref
(selector_expression field: (field_identifier) @ref)
(call_expression function: (identifier) @ref)
