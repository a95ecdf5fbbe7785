// Prints, for each {schema, args} case read as a JSON array on stdin, the
// message Gemini CLI's SchemaValidator gives: Ajv 8 with ajv-formats and
// strictSchema off, the 2020-12 class for schemas that declare it, no
// validation when the schema does not compile, errorsText with dataVar
// "params". Output: a JSON array of strings ("" when the args conform,
// "throws …" when Ajv throws).
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const opts = { strictSchema: false };
const draft7 = new Ajv(opts);
const draft2020 = new Ajv2020(opts);
addFormats(draft7);
addFormats(draft2020);

let input = '';
for await (const chunk of process.stdin) input += chunk;
// Compiled validators by schema text: Ajv caches by object identity, and
// the same schema comes many times.
const compiled = new Map();
const out = JSON.parse(input).map(({ schema, args }) => {
  const ajv = schema.$schema === 'https://json-schema.org/draft/2020-12/schema' ? draft2020 : draft7;
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    let validate = null;
    try {
      validate = ajv.compile(schema);
    } catch {
      // Gemini CLI skips validation when the schema does not compile.
    }
    compiled.set(key, validate);
  }
  const validate = compiled.get(key);
  if (!validate) return '';
  try {
    return validate(args) ? '' : ajv.errorsText(validate.errors, { dataVar: 'params' });
  } catch (e) {
    // Gemini CLI does not catch this: the call fails with the exception.
    return `throws ${e.name}: ${e.message}`;
  }
});
process.stdout.write(JSON.stringify(out));
