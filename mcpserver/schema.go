package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool schemas in the subset every host takes. The SDK derives a schema
// from a Go type with a type array for each slice, map and pointer
// (`"type": ["null", "array"]`); Gemini CLI's function declarations take
// an OpenAPI subset with one type per schema, and the MCP Inspector's
// --strict mode flags every array. portableSchema gives each such field
// its one type and drops it from "required"; a result is sent without
// its nulls (withoutNulls), so it still validates: an absent field is
// what null said.

// portableSchema is T's schema with no type arrays.
func portableSchema[T any]() (*jsonschema.Schema, error) {
	rt := reflect.TypeFor[T]()
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	s, err := jsonschema.ForType(rt, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	singleTypes(s)
	return s, nil
}

// singleTypes rewrites s and every schema under it to one type each,
// and reports whether s itself allowed null.
func singleTypes(s *jsonschema.Schema) (nullable bool) {
	if s == nil {
		return false
	}
	if len(s.Types) > 0 {
		var rest []string
		for _, t := range s.Types {
			if t == "null" {
				nullable = true
				continue
			}
			rest = append(rest, t)
		}
		switch len(rest) {
		case 1:
			s.Type, s.Types = rest[0], nil
		case 0:
			s.Types = nil // null alone: any value, as for an interface
		default:
			// Several non-null types: one schema per type.
			s.Types = nil
			for _, t := range rest {
				s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
			}
		}
	}
	for name, p := range s.Properties {
		if singleTypes(p) {
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
	}
	for _, sub := range []*jsonschema.Schema{s.Items, s.AdditionalProperties, s.Not, s.Contains, s.If, s.Then, s.Else} {
		singleTypes(sub)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.AllOf, s.OneOf, s.PrefixItems, s.ItemsArray} {
		for _, sub := range list {
			singleTypes(sub)
		}
	}
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.PatternProperties} {
		for _, sub := range m {
			singleTypes(sub)
		}
	}
	return nullable
}

// withoutNulls is v as JSON with every null object member and array
// element left out, for a result schema without null types.
func withoutNulls(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(dropNulls(tree)); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			if e != nil {
				out = append(out, dropNulls(e))
			}
		}
		return out
	}
	return v
}
