// Serves an in-memory PGlite database with the pgvector extension over the
// PostgreSQL wire protocol on loopback, for the pgvector adapter's tests
// (internal/pglitetest starts it with node and stops it by PID).
//
// Usage: node server.js [max-connections]
// It listens on 127.0.0.1 on a port the system chooses and prints one line,
// "listening 127.0.0.1:PORT", once it accepts connections. It stops on
// SIGTERM or SIGINT, and when its standard input closes (the test process
// that started it is gone).
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

const maxConnections = Number.parseInt(process.argv[2] ?? '8', 10)
if (!(maxConnections > 1)) {
  console.error(`server.js: max-connections must be an integer above 1, got ${process.argv[2]}`)
  process.exit(2)
}

const db = await PGlite.create({ extensions: { vector } })
const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections })
await server.start()
process.stdout.write(`listening ${server.getServerConn()}\n`)

let stopping = false
async function stop() {
  if (stopping) return
  stopping = true
  try {
    await server.stop()
    await db.close()
  } finally {
    process.exit(0)
  }
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop)
process.stdin.on('error', stop)
process.stdin.resume()
