// Reads a policy file as Gemini CLI 0.61 does (@iarna/toml's parse) and
// prints it as JSON, for package policy's tests.
import { readFileSync } from 'node:fs';
import toml from '@iarna/toml';

const parsed = toml.parse(readFileSync(process.argv[2], 'utf-8'));
process.stdout.write(JSON.stringify(parsed));
