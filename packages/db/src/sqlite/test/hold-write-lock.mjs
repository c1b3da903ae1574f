// The "other process" of the store's busy tests: takes the write lock of a SQLite file
// (BEGIN IMMEDIATE), prints "locked", and lets go when its stdin gets a line or closes.
import Database from "better-sqlite3";

const db = new Database(process.argv[2]);
db.exec("BEGIN IMMEDIATE");
process.stdout.write("locked\n");
const letGo = () => {
  if (db.inTransaction) db.exec("ROLLBACK");
  db.close();
  process.exit(0);
};
process.stdin.on("data", letGo);
process.stdin.on("end", letGo);
// Never outlive a test that forgot it.
setTimeout(letGo, 60_000).unref();
