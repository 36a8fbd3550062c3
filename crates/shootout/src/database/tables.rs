//! TechEmpower's tables: `World` (id, randomNumber: 10,000 rows, numbers 1..=10000) and
//! `Fortune` (its 12 rows, the `<script>` row and the Japanese row among them), under
//! PostgreSQL's folded names (`world`, `randomnumber`, `fortune`) as TechEmpower's own
//! schema declares them. The random numbers are seeded: every cluster holds the same rows.

/// The rows of `World` a benchmark's cluster has (TechEmpower's count).
pub const WORLD_ROWS: u32 = 10_000;

/// Fortune's rows, by id.
pub const FORTUNES: [&str; 12] = [
    "fortune: No such file or directory",
    "A computer scientist is someone who fixes things that aren't broken.",
    "After enough decimal places, nobody gives a damn.",
    "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
    "A computer program does what you tell it to do, not what you want it to do.",
    "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen",
    "Any program that runs right is obsolete.",
    "A list is only as strong as its weakest link. — Donald Knuth",
    "Feature: A bug with seniority.",
    "Computers make very fast, very accurate mistakes.",
    "<script>alert(\"This should not be displayed in a browser alert box.\");</script>",
    "フレームワークのベンチマーク",
];

/// The statements that make and fill both tables, with `world_rows` rows in `World`
/// (fewer in tests), and `pg_stat_statements`.
pub fn script(world_rows: u32) -> String {
    let fortunes: Vec<String> = (FORTUNES.iter().enumerate())
        .map(|(i, m)| format!("({}, {})", i + 1, quoted(m)))
        .collect();
    format!(
        "CREATE EXTENSION pg_stat_statements;\n\
         CREATE TABLE world (id integer NOT NULL PRIMARY KEY, randomnumber integer NOT NULL DEFAULT 0);\n\
         SELECT setseed(0.35);\n\
         INSERT INTO world (id, randomnumber)\n  \
           SELECT x, 1 + floor(random() * 10000)::integer FROM generate_series(1, {world_rows}) AS x;\n\
         CREATE TABLE fortune (id integer NOT NULL PRIMARY KEY, message varchar(2048) NOT NULL);\n\
         INSERT INTO fortune (id, message) VALUES\n  {};\n\
         VACUUM ANALYZE world;\n\
         VACUUM ANALYZE fortune;\n\
         SELECT pg_stat_statements_reset();\n",
        fortunes.join(",\n  ")
    )
}

/// `text` as an SQL string literal.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_fills_both_tables_and_quotes_the_fortunes() {
        let s = script(100);
        assert!(s.contains("generate_series(1, 100)"), "{s}");
        assert!(s.contains(
            "(2, 'A computer scientist is someone who fixes things that aren''t broken.')"
        ));
        assert!(s.contains("(12, 'フレームワークのベンチマーク')"));
        assert!(s.ends_with("SELECT pg_stat_statements_reset();\n"));
    }
}
