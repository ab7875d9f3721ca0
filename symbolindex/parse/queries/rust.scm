; Symbols and references for rust (see the capture roles in ../languages.go).
(function_item name: (identifier) @name body: (block) @body) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name body: (_)? @body) @def.struct
(union_item name: (type_identifier) @name body: (_)? @body) @def.struct
(enum_item name: (type_identifier) @name body: (_) @body) @def.enum
(trait_item name: (type_identifier) @name body: (_) @body) @def.interface
(type_item name: (type_identifier) @name) @def.type
(const_item name: (identifier) @name) @def.const
(static_item name: (identifier) @name) @def.var
(mod_item name: (identifier) @name body: (declaration_list) @body) @def.module
(impl_item type: (_) @name body: (declaration_list) @body) @def.impl
(macro_definition name: (identifier) @name) @def.function

; References: identifiers in call, type, selector and constructor positions.
(type_identifier) @ref
(call_expression function: (identifier) @ref)
(scoped_identifier name: (identifier) @ref)
(field_expression field: (field_identifier) @ref)
(macro_invocation macro: (identifier) @ref)
(scoped_use_list list: (use_list (identifier) @ref))
