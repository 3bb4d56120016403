// Package strictyaml decodes pgbufsim's YAML scenario files into Go structs
// strictly: every unknown key, malformed value, out-of-range number and
// duplicate key is an error that names the file, the line and the key path,
// with a hint, in the shape
//
//	x.yaml:4: server.shared_bufers: unknown key (did you mean "shared_buffers"?)
//	x.yaml:7: server.shared_buffers: invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)
//	-set server.shared_buffers=64XB: invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)
//
// Go type names never appear in these messages. Several problems are
// reported together, sorted by line, as an Errors value (a []*FieldError).
//
// It parses with go.yaml.in/yaml/v3 into a yaml.Node tree and walks that
// tree itself with reflect, instead of using yaml's struct decoding, so that
// positions, units and strictness hold everywhere — including inside policy
// parameter structs whose type is known only at run time (see Tagged), where
// yaml's own KnownFields does not reach.
//
// # Use
//
//	doc, err := strictyaml.Parse("x.yaml", data)       // syntax, empty file
//	err = doc.Set(reflect.TypeFor[Config](), "server.shared_buffers", "1GB") // -set overrides
//	cfg := DefaultConfig()
//	err = doc.Decode(&cfg)                                // strict decoding into defaults
//	err = doc.Errorf("server.cpus", "must be at least %d", 1) // later semantic checks
//	out, err := strictyaml.Encode(cfg)                    // loads back to the same cfg
//
// # Struct tags
//
//   - yaml:"name" names the key; without a tag the key is the lowercased
//     field name; yaml:"-" skips the field; yaml:",inline" merges an
//     embedded (or named) struct's keys into the parent. No other yaml tag
//     option is accepted (omitempty would break the round trip).
//   - unit:"bytes" on a signed integer field: a size as in postgresql.conf,
//     with the case-sensitive units B, kB, MB, GB, TB (powers of 1024),
//     stored in bytes. A bare number means bytes, unless the tag names a
//     default unit: unit:"bytes,8kB" makes a bare number count 8 kB blocks,
//     as shared_buffers does in PostgreSQL.
//   - unit:"duration": a time with the units us, ms, s, min, h, d (and ns),
//     stored as int64 nanoseconds. A bare number needs the tag's default unit
//     (unit:"duration,ms"); without one it is an error asking for a unit.
//     Zero may always be written bare.
//   - unit:"duration_ps": the same, with ps too, stored as int64
//     picoseconds (1.8ns is 1800), for prices per byte that whole
//     nanoseconds would round by half.
//     For all of them a number may have a fraction (1.5s, 0.5MB, 1.8ns)
//     when the result is a whole number of bytes, nanoseconds or (for
//     duration_ps) picoseconds, may be negative
//     (restrict that with range), and may have spaces before the unit.
//   - range:"min,max": inclusive bounds in the field's own notation, either
//     side may be empty: range:"1,15", range:"128kB,", range:"10ms,10s",
//     range:"0,1" for floats.
//   - enum:"a|b|c" on a string field: the allowed values, with did-you-mean.
//     An empty alternative (enum:"|a|b") also allows the empty string, for
//     a field where "" means unset; messages do not list it.
//   - shorthand:"key" on a struct field: a scalar written where the struct
//     is expected means {key: scalar}, so with shorthand:"preset" the text
//     `data: nvme` means `data: {preset: nvme}`. seqshorthand:"key" does the
//     same for a list (`script: [...]` meaning `script: {key: [...]}`).
//
// Tags on a pointer, slice or map field apply to its elements.
//
// # Field types
//
// bool (true/false, also yes/no/on/off), string, signed and unsigned
// integers, float32/float64 (decimal only; NaN and infinities are refused),
// structs, pointers (null means nil), []T (an empty list decodes to nil),
// map[string]T (Encode writes keys sorted; Go map order is random, so code
// iterating a decoded map must sort its keys, e.g. with slices.Sorted(maps.Keys(m))),
// and yaml.Node or *yaml.Node for raw values whose meaning is resolved later
// (such as sweep axes). A raw value is handed over as a copy with aliases
// and merge keys expanded, so it is a plain tree; it keeps its line numbers,
// and its duplicate keys are still reported.
//
// Strings take the text as written, so `version: 9.10` is "9.10".
// A key given with an empty value (`shared_buffers:`) is an error, except
// for pointers (nil) and raw nodes. A list or map in the file replaces the
// default one; each new element or map value starts from its type's
// Defaults method, if *T has one.
//
// # Methods the decoder calls
//
//   - Defaults(): on *T, called on each new list element, map value and
//     newly allocated pointer target before decoding into it.
//   - Validate() error: on *T, called after a value (typically a struct) has
//     been decoded without errors. A *FieldError whose File is empty has its
//     Path taken relative to the struct (`Path: "max"`, or "" for the struct
//     itself) and is placed at that key's line, or at the struct's own key
//     when the file does not set it; a plain error is placed at the struct's
//     key (for a list element, at the element). errors.Join of several
//     errors is split. Validate is not called for values the file leaves at
//     their defaults, so defaults must be valid by construction.
//   - Tagged (see its documentation): a struct whose parameter keys depend
//     on one of its values, such as a policy chosen by name.
//
// # Key paths
//
// Set, SetNode, Line and Errorf take paths such as
// `workload.phases.0.clients`, `workload.phases[0].clients` or, selecting a
// list element by the value of its name key, `workload.phases.run.clients`.
// Messages print them in display form, `workload.phases[0].clients`.
//
// YAML anchors, aliases and merge keys (`<<: *base`) work as in YAML;
// alias cycles and expansions far larger than the file are errors.
//
// Unit rules follow PostgreSQL's GUC code (src/backend/utils/misc/guc.c:
// memory_unit_conversion_table, time_unit_conversion_table, parse_int,
// convert_int_from_base_unit).
package strictyaml
