#!/usr/bin/env node
// The launcher of the npm package: it finds the Castor binary that the
// platform's optional dependency carries and runs it with the same
// arguments, standard streams and environment, then exits as it did.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");
const fs = require("node:fs");

// The platform packages, by Node's names for the platform and CPU.
const PACKAGES = {
  "linux-x64": "@castor-dev/castor-linux-x64",
  "linux-arm64": "@castor-dev/castor-linux-arm64",
  "darwin-x64": "@castor-dev/castor-darwin-x64",
  "darwin-arm64": "@castor-dev/castor-darwin-arm64",
  "win32-x64": "@castor-dev/castor-win32-x64",
  "win32-arm64": "@castor-dev/castor-win32-arm64",
};

function binaryPath() {
  // CASTOR_BINARY runs another build through the same launcher.
  if (process.env.CASTOR_BINARY) {
    return process.env.CASTOR_BINARY;
  }
  const key = `${process.platform}-${process.arch}`;
  const pkg = PACKAGES[key];
  if (!pkg) {
    fail(`Castor has no binary for ${key}; build it from source: go install github.com/castor-dev/castor/cmd/castor@latest`);
  }
  const exe = process.platform === "win32" ? "castor.exe" : "castor";
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(`the package ${pkg}, which carries Castor's binary for ${key}, is not installed; ` +
      `reinstall without --omit=optional (or --no-optional): npm install -g @castor-dev/castor`);
  }
  const bin = path.join(dir, "bin", exe);
  if (!fs.existsSync(bin)) {
    fail(`${bin} is missing; reinstall @castor-dev/castor`);
  }
  return bin;
}

function fail(msg) {
  process.stderr.write(`castor: ${msg}\n`);
  process.exit(1);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
// A terminal's Ctrl-C reaches Castor itself (same process group), which
// decides what it means (the interactive terminal asks twice); the
// launcher only waits. A signal sent to the launcher alone is passed on.
for (const sig of ["SIGINT", "SIGQUIT"]) {
  process.on(sig, () => {});
}
for (const sig of ["SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => fail(`cannot run ${err.path || "castor"}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so a shell sees what happened to Castor.
    for (const sig of ["SIGINT", "SIGQUIT", "SIGTERM", "SIGHUP"]) {
      process.removeAllListeners(sig);
    }
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
