// Package derive implements PCP's derived metrics as libpcp 6.0.3 does:
// the expression language of pmRegisterDerived(3), its syntax errors
// (positions and messages), configuration files (pmLoadDerivedConfig and
// $PCP_DERIVED_CONFIG), the semantic checks that give a derived metric its
// descriptor, and the PMIDs derived metrics get.
//
// # Parsing
//
// Parse reads an expression in one of two dialects: Dialect603, the
// language of libpcp 6.0.3 (whose functions avg, count, delta, max, min,
// sum, rate and instant take a metric name), and DialectCurrent, the
// language of the PCP 6.3.8 manual page (those functions take expressions;
// novalue() and mkconst(..., meta=...) exist). The parser is libpcp's
// grammar run by an LALR(1) parser built as GNU Bison builds it, with
// Bison's default reductions and error recovery, and a lexer that reads
// the expression character by character as libpcp's does: so a syntax
// error is reported at the offset libpcp reports (the value
// pmRegisterDerived returns) with the message pmDerivedErrStr gives. Two
// pieces of libpcp's behaviour that follow from this:
//
//   - "!" binds more loosely than the relational and arithmetic operators
//     but more tightly than && and ||, so "!a>b||c<d" is (!(a>b))||(c<d),
//     whatever the manual page says (the real library computes it so);
//   - after a registration fails inside matchinst(), the next
//     registration's lexer still reads "/" as the start of a pattern
//     (Registry keeps that state; Parse starts afresh).
//
// The tree (Node) prints back to text that parses to the same tree
// (Node.String).
//
// # Registration and configuration
//
// A Registry holds the global derived metrics of a process, as libpcp's
// pmRegisterDerived, pmRegisterDerivedMetric (Registry.RegisterMetric,
// with libpcp's error message) and pmLoadDerivedConfig
// (Registry.LoadConfig; Registry.LoadEnvConfig for the start-up load from
// $PCP_DERIVED_CONFIG) build it. Global metrics get the PMIDs 511.0.1,
// 511.0.2, ... (RegisterEventMetrics registers event.flags and
// event.missed first, as libpcp does before loading any configuration).
//
// # Binding
//
// A Context is the derived metrics of one PMAPI context: Bind checks a
// metric's expression against the context's metrics (a Lookup) and works
// out the descriptor of each node (a Bound tree, which an evaluator can
// walk) or the semantic error libpcp prints. Context.Add defines
// per-context metrics (pmAddDerived), whose PMIDs count down from
// 511.2047.1023. IsDerived, Remap and Chosen give the PMID and masking
// rules of pmRegisterDerived(3).
//
// Evaluation (fetching values, delta() and rate() history, instance
// matching) is not implemented here yet.
package derive
