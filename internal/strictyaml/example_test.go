package strictyaml_test

import (
	"fmt"
	"reflect"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
)

type Server struct {
	SharedBuffers int64 `yaml:"shared_buffers" unit:"bytes,8kB" range:"128kB,"`
	BgwriterDelay int64 `yaml:"bgwriter_delay" unit:"duration,ms" range:"10ms,10s"`
	MaxUsageCount int   `yaml:"max_usage_count" range:"1,15"`
}

type Config struct {
	Server Server `yaml:"server"`
}

func Example() {
	src := []byte("server:\n  shared_buffers: 16384   # 8kB blocks, as in postgresql.conf\n  bgwriter_delay: 0.5s\n")
	doc, err := strictyaml.Parse("x.yaml", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := doc.Set(reflect.TypeFor[Config](), "server.max_usage_count", "3"); err != nil {
		fmt.Println(err)
		return
	}
	cfg := Config{Server: Server{SharedBuffers: 128 << 20, BgwriterDelay: 200e6, MaxUsageCount: 5}}
	if err := doc.Decode(&cfg); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", cfg.Server)
	out, _ := strictyaml.Encode(cfg)
	fmt.Print(string(out))
	// Output:
	// {SharedBuffers:134217728 BgwriterDelay:500000000 MaxUsageCount:3}
	// server:
	//   shared_buffers: 128MB
	//   bgwriter_delay: 500ms
	//   max_usage_count: 3
}

func ExampleDocument_Decode_errors() {
	src := []byte("server:\n  shared_bufers: 1GB\n  bgwriter_delay: 5\n  max_usage_count: 20\n")
	doc, _ := strictyaml.Parse("x.yaml", src)
	_ = doc.Set(reflect.TypeFor[Config](), "server.shared_buffers", "64XB")
	var cfg Config
	fmt.Println(doc.Decode(&cfg))
	// Output:
	// x.yaml:2: server.shared_bufers: unknown key (did you mean "shared_buffers"?)
	// x.yaml:3: server.bgwriter_delay: 5 is out of range [10ms, 10s]
	// x.yaml:4: server.max_usage_count: 20 is out of range [1, 15]
	// -set server.shared_buffers=64XB: invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)
}
