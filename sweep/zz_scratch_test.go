package sweep
import ("testing";"os")
func TestScratch(t *testing.T) {
	code := Main([]string{"-config", "../configs/quickstart.yaml", "-set", "workload.phases.warmup.duration=1s", "-duration", "2s", "-replicates", "2", "-sweep", "server.shared_buffers=16MB,32MB,64MB", "-sweep", "policies.replacement.name=clock-sweep,lru", "-out", "/tmp/sw2", "-shard", "0/2"}, os.Stdout, os.Stderr)
	t.Log(code)
	code = Main([]string{"-config", "../configs/quickstart.yaml", "-set", "workload.phases.warmup.duration=1s", "-duration", "2s", "-replicates", "2", "-sweep", "server.shared_buffers=16MB,32MB,64MB", "-sweep", "policies.replacement.name=clock-sweep,lru", "-out", "/tmp/sw3", "-shard", "1/2"}, os.Stdout, os.Stderr)
	t.Log(code)
	code = MergeMain([]string{"-out", "/tmp/sw4", "/tmp/sw2", "/tmp/sw3"}, os.Stdout, os.Stderr)
	t.Log(code)
	code = Main([]string{"-config", "../configs/quickstart.yaml", "-set", "workload.phases.warmup.duration=1s", "-duration", "2s", "-replicates", "2", "-sweep", "server.shared_buffers=16MB,32MB,64MB", "-sweep", "policies.replacement.name=clock-sweep,lru", "-out", "/tmp/sw2", "-q"}, os.Stdout, os.Stderr)
	t.Log(code)
}
