package strictyaml

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// fieldOpts are the per-field rules from struct tags. They apply to the
// field's value and, through pointers, slices and maps, to its elements.
type fieldOpts struct {
	unit             unitSpec
	hasMin, hasMax   bool
	minI, maxI       int64
	minF, maxF       float64
	minText, maxText string
	enum             []string // allowed values; "" among them allows the empty string
	enumShown        []string // the non-empty ones, for messages
	shorthand        string
	seqShorthand     string
}

var noOpts = &fieldOpts{}

type fieldInfo struct {
	name  string
	index []int
	opts  *fieldOpts
}

type structInfo struct {
	fields []fieldInfo
	byName map[string]int
	names  []string // key names in field order, for suggestions
}

var (
	nodeType      = reflect.TypeFor[yaml.Node]()
	nodePtrType   = reflect.TypeFor[*yaml.Node]()
	taggedType    = reflect.TypeFor[Tagged]()
	defaulterType = reflect.TypeFor[interface{ Defaults() }]()
	validatorType = reflect.TypeFor[interface{ Validate() error }]()
)

// infoCache memoises structInfo per type; a sweep decodes the same types
// many times, possibly from several goroutines, hence sync.Map.
var infoCache sync.Map // reflect.Type -> infoResult

type infoResult struct {
	info *structInfo
	err  error
}

func structInfoFor(t reflect.Type) (*structInfo, error) {
	if r, ok := infoCache.Load(t); ok {
		res := r.(infoResult)
		return res.info, res.err
	}
	si := &structInfo{byName: map[string]int{}}
	err := si.add(t, nil, 0)
	if err != nil {
		si = nil
	}
	infoCache.Store(t, infoResult{si, err})
	return si, err
}

func (si *structInfo) add(t reflect.Type, prefix []int, depth int) error {
	if depth > 32 {
		return fmt.Errorf("strictyaml: %s: inline structs nested too deeply", t)
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("yaml")
		if tag == "-" {
			continue
		}
		name, optText, _ := strings.Cut(tag, ",")
		inline := false
		for _, o := range strings.Split(optText, ",") {
			switch o {
			case "":
			case "inline":
				inline = true
			default:
				return fmt.Errorf("strictyaml: %s.%s: unsupported yaml tag option %q (only \",inline\")", t, f.Name, o)
			}
		}
		if !f.IsExported() && !(f.Anonymous && inline) {
			if hasTag {
				return fmt.Errorf("strictyaml: %s.%s: unexported field has a yaml tag", t, f.Name)
			}
			continue
		}
		index := append(append([]int(nil), prefix...), i)
		if inline {
			if f.Type.Kind() != reflect.Struct {
				return fmt.Errorf("strictyaml: %s.%s: \",inline\" needs a struct field, not %s", t, f.Name, f.Type)
			}
			if err := si.add(f.Type, index, depth+1); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if _, dup := si.byName[name]; dup {
			return fmt.Errorf("strictyaml: %s: two fields use the key %q", t, name)
		}
		opts, err := parseFieldOpts(f)
		if err != nil {
			return fmt.Errorf("strictyaml: %s.%s: %v", t, f.Name, err)
		}
		si.byName[name] = len(si.fields)
		si.fields = append(si.fields, fieldInfo{name: name, index: index, opts: opts})
		si.names = append(si.names, name)
	}
	return nil
}

// leafType strips pointers, slices and maps: the type tag rules apply to.
func leafType(t reflect.Type) reflect.Type {
	for i := 0; i < 16; i++ {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if t == nodePtrType {
				return t
			}
			t = t.Elem()
		default:
			return t
		}
	}
	return t
}

func isSignedInt(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Int64
}

func isUnsignedInt(k reflect.Kind) bool {
	return k >= reflect.Uint && k <= reflect.Uintptr
}

func isFloat(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }

func parseFieldOpts(f reflect.StructField) (*fieldOpts, error) {
	unitTag, hasUnit := f.Tag.Lookup("unit")
	rangeTag, hasRange := f.Tag.Lookup("range")
	enumTag, hasEnum := f.Tag.Lookup("enum")
	short, hasShort := f.Tag.Lookup("shorthand")
	seqShort, hasSeqShort := f.Tag.Lookup("seqshorthand")
	if !hasUnit && !hasRange && !hasEnum && !hasShort && !hasSeqShort {
		return noOpts, nil
	}
	o := &fieldOpts{}
	leaf := leafType(f.Type)
	k := leaf.Kind()
	if hasUnit {
		if !isSignedInt(k) {
			return nil, fmt.Errorf("unit tag needs a signed integer field, not %s", leaf)
		}
		u, ok := parseUnitTag(unitTag)
		if !ok {
			return nil, fmt.Errorf("bad unit tag %q (want bytes, bytes,<unit>, duration, duration,<unit> or duration_ps)", unitTag)
		}
		o.unit = u
	}
	if hasRange {
		if err := o.parseRange(rangeTag, k); err != nil {
			return nil, err
		}
	}
	if hasEnum {
		if k != reflect.String {
			return nil, fmt.Errorf("enum tag needs a string field, not %s", leaf)
		}
		o.enum = strings.Split(enumTag, "|")
		for _, e := range o.enum {
			if e != "" {
				o.enumShown = append(o.enumShown, e)
			}
		}
	}
	if hasShort || hasSeqShort {
		isStruct := k == reflect.Struct && leaf != nodeType
		if !isStruct {
			return nil, fmt.Errorf("shorthand tags need a struct field, not %s", leaf)
		}
		if !reflect.PointerTo(leaf).Implements(taggedType) {
			for _, key := range []string{short, seqShort} {
				if key != "" && !hasKey(leaf, key, 0) {
					return nil, fmt.Errorf("shorthand key %q is not a key of %s", key, leaf)
				}
			}
		}
		o.shorthand, o.seqShorthand = short, seqShort
	}
	return o, nil
}

// hasKey reports whether struct type t has the yaml key, looking through
// inline fields; it avoids structInfoFor so recursive types cannot loop.
func hasKey(t reflect.Type, key string, depth int) bool {
	if depth > 32 {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opt, _ := strings.Cut(tag, ",")
		if opt == "inline" && f.Type.Kind() == reflect.Struct {
			if hasKey(f.Type, key, depth+1) {
				return true
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if tag != "-" && f.IsExported() && name == key {
			return true
		}
	}
	return false
}

func (o *fieldOpts) parseRange(tag string, k reflect.Kind) error {
	lo, hi, ok := strings.Cut(tag, ",")
	if !ok {
		return fmt.Errorf("bad range tag %q (want \"min,max\", either side may be empty)", tag)
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	o.minText, o.maxText = lo, hi
	o.minI, o.maxI = math.MinInt64, math.MaxInt64
	o.minF, o.maxF = math.Inf(-1), math.Inf(1)
	parse := func(s string, i *int64, f *float64) error {
		switch {
		case isFloat(k):
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("bad range bound %q", s)
			}
			*f = v
		case isSignedInt(k) || isUnsignedInt(k):
			if o.unit.kind != unitNone {
				v, e, _ := parseQuantity(s, o.unit)
				if e != qOK {
					return fmt.Errorf("bad range bound %q", s)
				}
				*i = v
				return nil
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("bad range bound %q", s)
			}
			*i = v
		default:
			return fmt.Errorf("range tag needs a number field, not %s", k)
		}
		return nil
	}
	if lo != "" {
		o.hasMin = true
		if err := parse(lo, &o.minI, &o.minF); err != nil {
			return err
		}
	}
	if hi != "" {
		o.hasMax = true
		if err := parse(hi, &o.maxI, &o.maxF); err != nil {
			return err
		}
	}
	if !o.hasMin && !o.hasMax {
		return fmt.Errorf("range tag %q gives no bound", tag)
	}
	return nil
}

// rangeMsg words an out-of-range value with the tag's own notation.
func (o *fieldOpts) rangeMsg(text string) string {
	shown := strings.TrimSpace(text)
	switch {
	case o.hasMin && o.hasMax:
		return shown + " is out of range [" + o.minText + ", " + o.maxText + "]"
	case o.hasMin:
		return shown + " is out of range (minimum " + o.minText + ")"
	default:
		return shown + " is out of range (maximum " + o.maxText + ")"
	}
}
