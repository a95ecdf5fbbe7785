// Prints, for each {schema, args} case read as a JSON array on stdin, the
// message Gemini CLI's SchemaValidator gives: Ajv 8 with ajv-formats and
// strictSchema off, the 2020-12 class for schemas that declare it, no
// validation when the schema does not compile, errorsText with dataVar
// "params". Output: a JSON array of strings ("" when the args conform).
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
const out = JSON.parse(input).map(({ schema, args }) => {
  const ajv = schema.$schema === 'https://json-schema.org/draft/2020-12/schema' ? draft2020 : draft7;
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch {
    return '';
  }
  return validate(args) ? '' : ajv.errorsText(validate.errors, { dataVar: 'params' });
});
process.stdout.write(JSON.stringify(out));
