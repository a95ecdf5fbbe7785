// Preloaded (node -r) into the conformance suite. Its scenario servers
// call listen(0) and read server.address() at once, binding every
// interface. This binds such a listen to 127.0.0.1 instead, synchronously
// (through a pre-bound TCP handle, as a host name would make the bind wait
// for a lookup), so that the suite stays on loopback. Ports are kept.
'use strict';
const net = require('net');
const { TCP, constants } = process.binding('tcp_wrap');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const rest = args.slice(1);
  if ((typeof port === 'number' || (typeof port === 'string' && port !== '' && !isNaN(Number(port)))) &&
      (rest.length === 0 || typeof rest[0] === 'function' || typeof rest[0] === 'number')) {
    const handle = new TCP(constants.SERVER);
    if (handle.bind('127.0.0.1', Number(port)) === 0) {
      return listen.call(this, handle, ...rest);
    }
    handle.close();
  }
  if (port !== null && typeof port === 'object' && port.port !== undefined && !port.host && !port.path) {
    args[0] = { ...port, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
