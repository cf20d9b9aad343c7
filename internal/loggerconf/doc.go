// Overview of package loggerconf (see types.go for the package doc).
//
// The pieces, in the order pmlogger 6.0.3 runs them:
//
//  1. Preprocess: `pmcpp -rs -I $PCP_VAR_DIR/config/pmlogger CONFIG`
//     (%include, %shell, %define/%undef, %ifdef/%ifndef/%else/%endif,
//     %name and %{name} expansion, `# N "file"` line markers), with
//     pmcpp's own messages and its quirks (an unfinished last line is
//     dropped, text after a NUL is lost, a second %else that is taken is
//     a "Macro redefinition", an unknown %directive ends a false block).
//     pmcpp's errors do not stop pmlogger: it parses what pmcpp wrote.
//  2. The first pass (pass0.c) picks names out of { } lists; a single
//     unknown one makes pmlogger say "cache_bind(): pmLookupName(1,
//     ...): Unknown metric name" (Config.ListNames, Resolve).
//  3. Parse: lex.l and gram.y. The lexer follows flex's longest-match
//     rule over the same patterns (keywords are NAMEs inside { }; IPv6
//     and IPv4 wildcard forms; `# N "file"` markers set the line and
//     file). The parser reads its lookahead when bison does, so line
//     numbers in errors and warnings are the real ones: a warning about
//     a metric gives the line of the token after it.
//  4. Resolve: the grammar actions against the live name space:
//     non-leaf names expanded, instances looked up, groups (tasks)
//     keyed by state and interval, the mandatory/advisory precedence
//     rules of checks.c, and the warnings.
//  5. The [access] rules go through libpcp's __pmAccAddHost model
//     (wildcards, unix:/local:, name resolution, permission clashes);
//     pcpkit reports them but does not enforce them.
//
// Check runs all of it and writes what `pmlogger -C` writes after its
// "preprocessor cmd:" line. The interop test compares it byte for byte
// with the real pmlogger on testdata/configs/*.conf.

package loggerconf
