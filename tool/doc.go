// Package tool defines what a tool is to the engine: its declaration, how a
// call is validated, confirmed and executed, and how its result becomes the
// functionResponse parts the model sees.
//
// Built-in tools live in tool/builtin; MCP and SDK-defined tools implement
// the same interfaces.
//
// # Validating arguments
//
// Registry.Prepare checks a call's arguments with
// github.com/google/jsonschema-go (each tool's schema resolved once, on its
// first call; draft-07 unless the schema says 2020-12, as Ajv assumes).
// When it rejects a call, validate_ajv.go walks the resolved schema to word
// the first failure as Gemini CLI's Ajv does ("params/todos/0/status must
// be equal to one of the allowed values"), in Ajv's keyword order:
// jsonschema-go's errors carry no keyword or instance path. The walker
// tests each keyword as jsonschema-go does, so it only words;
// FuzzValidateArgs checks the two agree.
//
// Not checked, as in Gemini CLI: schemas Ajv would not compile (types such
// as STRING, other drafts, unresolvable refs). Not checked, unlike Gemini
// CLI: format (an annotation for jsonschema-go), a pattern RE2 cannot
// compile (a lookahead), keywords beside a draft-07 $ref, and schemas
// jsonschema-go would recurse on forever (a $ref cycle that never descends
// into the value: a Go stack overflow ends the process).
// testdata/ajv/cases.json holds Ajv's own messages, with Castor's where it
// knowingly differs; TestAjvMessages runs Ajv under Node (-update rewrites
// them) and TestAjvMessagesRandom* compare Castor with Ajv on random
// schemas and calls.
//
// Optional behaviour of a tool goes through the named interfaces (Aliased,
// ArgNormalizer, Modifiable, ServerTool, TrustedTool).
package tool
