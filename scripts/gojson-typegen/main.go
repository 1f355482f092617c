// gojson-typegen prints, as JSON, the Go type model Duckbill decodes and marshals with (src/apis/go-types.generated.ts):
// every struct reachable from the roots below, by reflection over the Go types of the module it is built in, field by
// field with its JSON name, Go type, tag options (omitempty, omitzero, inline) and pointer/slice/map structure, in
// encoding/json's field order.
//
// It is built inside a copy of a release's reference module (reference/knative-<release>/go.mod and go.sum), so the
// k8s.io/api, k8s.io/apimachinery, knative.dev/pkg, knative.dev/networking and knative.dev/serving it reflects over
// are exactly that release's. Run it through scripts/types-generate.mjs (`npm run types:generate`).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/apis"
	autoscalingv1alpha1 "knative.dev/serving/pkg/apis/autoscaling/v1alpha1"
	servingv1 "knative.dev/serving/pkg/apis/serving/v1"
	servingv1beta1 "knative.dev/serving/pkg/apis/serving/v1beta1"
)

// Go package path → the table's package alias (src/apis/knative-types.ts PACKAGES).
var aliases = map[string]string{
	"k8s.io/api/core/v1":                                  "core",
	"k8s.io/api/admission/v1":                             "admission",
	"k8s.io/api/authentication/v1":                        "authentication",
	"k8s.io/apimachinery/pkg/apis/meta/v1":                "meta",
	"k8s.io/apimachinery/pkg/api/resource":                "resource",
	"k8s.io/apimachinery/pkg/util/intstr":                 "intstr",
	"k8s.io/apimachinery/pkg/types":                       "types",
	"k8s.io/apimachinery/pkg/runtime":                     "runtime",
	"knative.dev/pkg/apis":                                "apis",
	"knative.dev/pkg/apis/duck/v1":                        "duck",
	"knative.dev/serving/pkg/apis/serving/v1":             "serving",
	"knative.dev/serving/pkg/apis/serving/v1beta1":        "servingv1beta1",
	"knative.dev/serving/pkg/apis/autoscaling/v1alpha1":   "autoscaling",
	"knative.dev/networking/pkg/apis/networking/v1alpha1": "networking",
	"knative.dev/networking/pkg/apis/networking":          "net",
	"time": "time",
}

// Types with their own MarshalJSON/UnmarshalJSON: modelled by hand in TypeScript (go/encoding/json/types.ts
// SPECIAL_TYPES).
var special = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):    "resource.Quantity",
	reflect.TypeOf(intstr.IntOrString{}):   "intstr.IntOrString",
	reflect.TypeOf(metav1.Time{}):          "meta.Time",
	reflect.TypeOf(metav1.FieldsV1{}):      "meta.FieldsV1",
	reflect.TypeOf(runtime.RawExtension{}): "runtime.RawExtension",
	reflect.TypeOf(apis.URL{}):             "apis.URL",
	reflect.TypeOf(apis.VolatileTime{}):    "apis.VolatileTime",
}

var (
	marshaler   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

type model struct {
	Structs [][2]any          `json:"structs"` // [name, fields] in discovery order
	Named   map[string]string `json:"named"`
	// Per struct, JSON name → Go field name where the Go name is not the JSON name with its first letter
	// upper-cased (TTY, HTTPGet, ObjectMeta): go-cmp's paths in kmp.ShortDiff print Go names.
	GoNames map[string]map[string]string `json:"goNames"`
}

type gen struct {
	order     []string
	structDef map[string][]string
	named     map[string]string
	goNames   map[string]map[string]string
	queue     []reflect.Type
	seen      map[reflect.Type]bool
}

func (g *gen) name(t reflect.Type) string {
	a, ok := aliases[t.PkgPath()]
	if !ok {
		panic("no alias for " + t.PkgPath() + " (" + t.String() + ")")
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

// structFields follows encoding/json typeFields: `json:"-"` skipped, unexported non-embedded fields skipped, an
// embedded struct without a JSON name is inlined ("^ T").
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
		var opts []string
		for _, p := range parts[1:] {
			switch p {
			case "omitempty", "omitzero":
				opts = append(opts, p)
			case "inline", "":
			default:
				panic(fmt.Sprintf("%s.%s: unsupported tag option %q", t, f.Name, p))
			}
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				panic(fmt.Sprintf("%s.%s: embedded pointer", t, f.Name))
			}
			out = append(out, "^ "+g.expr(ft))
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if f.Name != strings.ToUpper(name[:1])+name[1:] {
			n := g.name(t)
			if g.goNames[n] == nil {
				g.goNames[n] = map[string]string{}
			}
			g.goNames[n][name] = f.Name
		}
		s := name + " " + g.expr(f.Type)
		for _, o := range opts {
			s += " " + o
		}
		out = append(out, s)
	}
	return out
}

func main() {
	g := &gen{structDef: map[string][]string{}, named: map[string]string{}, goNames: map[string]map[string]string{}, seen: map[reflect.Type]bool{}}
	// The roots: what Knative's webhooks decode (knative.dev/serving cmd/webhook/main.go: the `types` map, the
	// ConfigMaps of /config-validation, the AdmissionReview of knative.dev/pkg webhook/admission.go) and the
	// Kubernetes types Duckbill's rules read.
	roots := []reflect.Type{
		reflect.TypeOf(metav1.TypeMeta{}),
		reflect.TypeOf(metav1.ObjectMeta{}),
		reflect.TypeOf(corev1.PodSpec{}),
		reflect.TypeOf(corev1.ObjectReference{}),
		reflect.TypeOf(corev1.ConfigMap{}),
		reflect.TypeOf(admissionv1.AdmissionReview{}),
		reflect.TypeOf(servingv1.Service{}),
		reflect.TypeOf(servingv1.Configuration{}),
		reflect.TypeOf(servingv1.Revision{}),
		reflect.TypeOf(servingv1.Route{}),
		reflect.TypeOf(servingv1beta1.DomainMapping{}),
		reflect.TypeOf(autoscalingv1alpha1.PodAutoscaler{}),
		reflect.TypeOf(autoscalingv1alpha1.Metric{}),
		reflect.TypeOf(netv1alpha1.Certificate{}),
		reflect.TypeOf(netv1alpha1.Ingress{}),
		reflect.TypeOf(netv1alpha1.ServerlessService{}),
	}
	for _, r := range roots {
		g.expr(r)
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		n := g.name(t)
		g.order = append(g.order, n)
		g.structDef[n] = g.structFields(t)
	}
	m := model{Named: g.named, GoNames: g.goNames}
	for _, n := range g.order {
		m.Structs = append(m.Structs, [2]any{n, g.structDef[n]})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
}
