// typegen prints Duckbill's Go type table (src/apis/k8s-types.ts) for the Kubernetes
// types reachable from the roots below, by reflection over k8s.io/api v0.31.4.
//
// Run (outside the TypeScript build; needs Go and the module proxy):
//
//	cd scripts/gojson-typegen && go mod init typegen && go get k8s.io/api@v0.31.4 k8s.io/apimachinery@v0.31.4
//	go run . > /tmp/k8s-types.txt   # then replace the tables in k8s-types.ts with its output
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var aliases = map[string]string{
	"k8s.io/api/core/v1":                   "core",
	"k8s.io/apimachinery/pkg/apis/meta/v1": "meta",
	"k8s.io/apimachinery/pkg/api/resource": "resource",
	"k8s.io/apimachinery/pkg/util/intstr":  "intstr",
	"k8s.io/apimachinery/pkg/types":        "types",
}

// Types with their own MarshalJSON/UnmarshalJSON: modelled by hand in TypeScript.
var special = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):    "resource.Quantity",
	reflect.TypeOf(intstr.IntOrString{}):   "intstr.IntOrString",
	reflect.TypeOf(metav1.Time{}):          "meta.Time",
	reflect.TypeOf(metav1.FieldsV1{}):      "meta.FieldsV1",
}

var (
	marshaler   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

type gen struct {
	structs   []string
	structDef map[string][]string
	named     map[string]string
	queue     []reflect.Type
	seen      map[reflect.Type]bool
}

func (g *gen) name(t reflect.Type) string {
	a, ok := aliases[t.PkgPath()]
	if !ok {
		panic("no alias for " + t.PkgPath())
	}
	return a + "." + t.Name()
}

func (g *gen) expr(t reflect.Type) string {
	if s, ok := special[t]; ok {
		return s
	}
	if t.Kind() != reflect.Pointer && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(unmarshaler)) {
		panic("unmodelled custom JSON type " + t.String())
	}
	if t.Name() != "" && t.PkgPath() != "" {
		n := g.name(t)
		if !g.seen[t] {
			g.seen[t] = true
			if t.Kind() == reflect.Struct {
				g.queue = append(g.queue, t)
			} else {
				g.named[n] = g.underlying(t)
			}
		}
		return n
	}
	return g.underlying(t)
}

func (g *gen) underlying(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.expr(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && t.Elem().Name() == "uint8" {
			return "[]byte"
		}
		return "[]" + g.expr(t.Elem())
	case reflect.Map:
		return "map[" + g.expr(t.Key()) + "]" + g.expr(t.Elem())
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return t.Kind().String()
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "interface{}"
		}
	}
	panic("unsupported type " + t.String())
}

func (g *gen) structFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		name := parts[0]
		omit := false
		for _, p := range parts[1:] {
			switch p {
			case "omitempty":
				omit = true
			case "inline", "":
			default:
				panic(fmt.Sprintf("%s.%s: unsupported tag option %q", t, f.Name, p))
			}
		}
		if f.Anonymous && name == "" {
			out = append(out, "^ "+g.expr(f.Type))
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := name + " " + g.expr(f.Type)
		if omit {
			s += " omitempty"
		}
		out = append(out, s)
	}
	return out
}

func main() {
	g := &gen{structDef: map[string][]string{}, named: map[string]string{}, seen: map[reflect.Type]bool{}}
	roots := []reflect.Type{
		reflect.TypeOf(metav1.TypeMeta{}),
		reflect.TypeOf(metav1.ObjectMeta{}),
		reflect.TypeOf(corev1.PodSpec{}),
		reflect.TypeOf(corev1.ObjectReference{}),
		reflect.TypeOf(corev1.ConfigMap{}),
	}
	for _, r := range roots {
		g.expr(r)
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		n := g.name(t)
		g.structs = append(g.structs, n)
		g.structDef[n] = g.structFields(t)
	}
	w := os.Stdout
	fmt.Fprintln(w, "export const k8sStructs: StructTable = {")
	for _, n := range g.structs {
		fmt.Fprintf(w, "  %q: [\n", n)
		for _, f := range g.structDef[n] {
			fmt.Fprintf(w, "    %q,\n", f)
		}
		fmt.Fprintln(w, "  ],")
	}
	fmt.Fprintln(w, "};")
	fmt.Fprintln(w)
	var names []string
	for n := range g.named {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "export const k8sNamedTypes: NamedTypeTable = {")
	for _, n := range names {
		fmt.Fprintf(w, "  %q: %q,\n", n, g.named[n])
	}
	fmt.Fprintln(w, "};")
}
