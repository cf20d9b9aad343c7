// Runs one SQL statement with DuckDB (@duckdb/node-api, installed under
// the directory $PCPKIT_DUCKDB) and prints its result as one JSON object:
// {"columns": [names], "types": [DuckDB types], "rows": [[values]]}.
// The tests of internal/pcp2arrow read pcp2arrow's Parquet with it, as
// users will.
const path = require.resolve('@duckdb/node-api', { paths: [process.env.PCPKIT_DUCKDB || '.'] });
const { DuckDBInstance } = require(path);

(async () => {
	const db = await DuckDBInstance.create(':memory:');
	const conn = await db.connect();
	const r = await conn.runAndReadAll(process.argv[2]);
	process.stdout.write(JSON.stringify({
		columns: r.columnNames(),
		types: r.columnTypes().map(String),
		rows: r.getRowsJson(),
	}));
})().catch((e) => {
	process.stderr.write(String(e && e.message || e) + '\n');
	process.exit(1);
});
