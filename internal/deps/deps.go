package deps
import (
 _ "github.com/go-echarts/go-echarts/v2/charts"
 _ "gonum.org/v1/gonum/stat"
 _ "go.yaml.in/yaml/v3"
 _ "github.com/klauspost/compress/zstd"
 _ "golang.org/x/term"
)
