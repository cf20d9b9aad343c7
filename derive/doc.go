// Package derive implements PCP's derived metrics as libpcp 6.0.3 and
// libpcp 6.3.8 do: the expression language of pmRegisterDerived(3), its
// syntax errors (positions and messages), configuration files
// (pmLoadDerivedConfig and $PCP_DERIVED_CONFIG), the semantic checks that
// give a derived metric its descriptor, the PMIDs derived metrics get, and
// their evaluation over fetched values (Evaluator), live or from an
// archive.
//
// # Two languages
//
// Dialect603 is the language of libpcp 6.0.3 (whose functions avg, count,
// delta, max, min, sum, rate and instant take a metric name);
// DialectCurrent is that of libpcp 6.3.8 (delta, rate and instant take
// expressions, novalue() may be an operand of ?:, mkconst() and novalue()
// take meta=, guards made of defined() are evaluated when binding, rate()
// drops a counter that went down, ...), each checked against its real
// library. ProcessDialect is the one pcpkit's tools use: that of the PCP
// they behave as ($PCPKIT_PCP_VERSION, else the host's pcp.conf; see
// pcpconf.Version). docs/derive.md tables the differences.
//
// # Parsing
//
// Parse reads an expression in one of the two dialects. The parser is
// libpcp's grammar (each version's, rule for rule) run by LALR(1) tables
// built as GNU Bison builds them (at development time, by go generate),
// with Bison's default reductions and error recovery, and a lexer that
// reads the expression character by character as libpcp's does: so a
// syntax error is reported at the offset libpcp reports (the value
// pmRegisterDerived returns) with the message pmDerivedErrStr gives. A
// Registry also keeps the state libpcp's parser keeps from one parse to
// the next (6.3.8's novalue(...) starts from what the last mkconst() left,
// and "x ? novalue() : novalue()" registers the previous parse's tree).
// Two pieces of libpcp's behaviour that follow from this:
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
// # Evaluation
//
// An Evaluator (Context.NewEvaluator) computes derived metrics from
// fetched values, as libpcp's __dmprefetch and __dmpostfetch do. It knows
// nothing of where values come from, so the replay context (archives),
// pmlogger (a pmcd or a built-in collector) and tests all use it the same
// way:
//
//	ev := dc.NewEvaluator(derive.EvalOptions{Names: names})
//	fetch := ev.Prefetch(req)           // req plus the operands to fetch
//	res, err := source.Fetch(fetch)     // the source's values
//	out, err := ev.Postfetch(req, res)  // one value set per PMID of req
//
// The fetch list is req itself (derived PMIDs included, which a source
// answers with no values or an error, as libpcp sends them too) followed
// by the operands not already in it. Postfetch evaluates each derived
// PMID of req at the time of res and copies the other value sets. Values
// are encoded as pcpkit's sources encode them: 32 and U32 insitu, 64, U64,
// FLOAT and DOUBLE as big-endian value blocks, other types as their
// payload. The result and its values belong to the Evaluator until the
// next Postfetch; after the first fetches have sized its buffers a fetch
// allocates nothing (BenchmarkDeltaRatio: delta(a)/delta(b) over 16
// instances, 0 allocs/op).
//
// The rules are libpcp 6.0.3's, checked against it (the python3-pcp
// oracle, pmval and pminfo; see docs/derive.md), and in DialectCurrent
// libpcp 6.3.8's where they differ (see below and docs/derive.md):
//
//   - binary operators: the left operand drives; a singular operand (no
//     instance domain) is used with every instance of the other; over two
//     instance domains instances are matched by number (the same position
//     first, then a scan) and a left instance with no match is skipped;
//     either operand with no values gives no values; an error is passed
//     up;
//   - arithmetic in the promoted type with C's conversions and wrap
//     around, DOUBLE operands scaled as (v/div)*mul, "/" always DOUBLE and
//     0 when the dividend is 0; relational and boolean operators compare
//     in the promoted type and give U32 0 or 1; unary minus of U32 and
//     U64 gives 32 and 64;
//   - instance selection: expr[name] selects the instance the source's
//     InstLookup finds (an archive's pmLookupInDom rule), matchinst()
//     matches its pattern against the instance name up to its first
//     space, once per instance, with names from the InstNamer at the time
//     of the fetch; scalar() takes the first value;
//   - avg() is a FLOAT sum of (float)v/n, count() of an operand that fails
//     is 0, max() and min() over no values repeat their last value;
//   - delta() and rate() keep the operand's values at the previous
//     evaluation of the metric (so per context, per metric, per
//     instance): the first fetch, and a fetch after one with no values,
//     has none; instances are matched as for binary operators; delta() of
//     U32 is 64 ((int64)cur-(int64)prev), of U64 DOUBLE; rate() is the
//     difference computed in the operand's type, divided by the seconds
//     between the results (libpcp's long double timestamp subtraction),
//     scaled to seconds for a time operand; a counter that went down gives
//     a huge rate in 6.0.3, and in DialectCurrent (libpcp 6.3.8) the
//     instance is left out when the operand is a counter (but for
//     PM_TYPE_32);
//   - ?: works by position as libpcp does (value i from the operand the
//     guard's value i selects, the instances those of the true operand),
//     and over strings gives empty strings as libpcp does; in
//     DialectCurrent a guard known when binding selects its operand (the
//     other is neither checked nor evaluated), and a position where
//     novalue() is selected has no value;
//   - in DialectCurrent delta() and rate() of x[name] or of defined()
//     have no values (libpcp 6.3.8 keeps no history for them), and a
//     constant with an instance domain (mkconst(..., meta=m)) has a value
//     for each instance of the source's instance domain (InDomLister).
//
// # Going backwards
//
// libpcp computes delta() and rate() as "this fetch minus the previous
// fetch" whatever the direction of time, so in a backwards replay (BACK,
// or INTERP with a negative interval) a rising counter has a negative
// delta, a U32 counter's rate wraps to a huge negative value, and the
// interval a value describes lies after its timestamp. pcpkit instead
// takes the two samples in time order: the later minus the earlier, over
// the positive time between them. Each interval between two samples then
// has the same delta and rate whichever way it is replayed, reported at
// the later sample going forwards and at the earlier one going
// backwards; the first fetch has no values either way, and
// DialectCurrent's counter-wrap rule applies to the time-ordered
// difference. EvalOptions.Literal gives libpcp's behaviour (the oracle
// tests use it).
package derive
