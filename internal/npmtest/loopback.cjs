// Preloaded (node -r) into npm MCP servers under test. They listen on
// every interface at a fixed port; this makes them listen on 127.0.0.1 at
// a free port instead and report it on stderr as "CASTOR_LISTENING <port>",
// so tests stay on loopback and never race for a port.
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const cb = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
  let opts = {};
  if (args[0] !== null && typeof args[0] === 'object') {
    opts = { ...args[0] };
  } else if (typeof args[0] === 'string' && isNaN(Number(args[0]))) {
    opts = { path: args[0] };
  } else {
    opts = { port: args[0] };
  }
  if (opts.path === undefined) {
    opts.host = '127.0.0.1';
    opts.port = 0;
    this.once('listening', () => {
      const a = this.address();
      if (a && typeof a === 'object') process.stderr.write(`CASTOR_LISTENING ${a.port}\n`);
    });
  }
  return cb ? listen.call(this, opts, cb) : listen.call(this, opts);
};
