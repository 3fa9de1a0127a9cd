package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// job is the part of a Kubernetes batch/v1 Job the shards depend on,
// without Kubernetes' Go API.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image string   `yaml:"image"`
					Args  []string `yaml:"args"`
					Env   []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestDistributedManifest: the first YAML block of docs/distributed.md is
// a batch/v1 Job in Indexed completion mode with completions equal to
// parallelism, TTFTLAB_SHARDS equal to them, the run id and start time in
// the environment, a shared volume (a claim) mounted where --out writes,
// and args that run `load` with --duration and only flags load has.
func TestDistributedManifest(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "distributed.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/distributed.md has no ```yaml block")
	}
	var j job
	if err := yaml.Unmarshal(m[1], &j); err != nil {
		t.Fatalf("the manifest is no YAML: %v", err)
	}
	s := j.Spec
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || s.CompletionMode != "Indexed" {
		t.Errorf("apiVersion %q, kind %q, completionMode %q: want batch/v1, Job, Indexed", j.APIVersion, j.Kind, s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 2 {
		t.Fatalf("completions %v, parallelism %v: want equal, at least 2", s.Completions, s.Parallelism)
	}
	if s.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q: a shard restarted after its start would run late", s.Template.Spec.RestartPolicy)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	for _, name := range []string{"TTFTLAB_SHARDS", "TTFTLAB_RUN_ID", "TTFTLAB_START_AT"} {
		if env[name] == "" {
			t.Errorf("the container's env lacks %s", name)
		}
	}
	if n, err := strconv.Atoi(env["TTFTLAB_SHARDS"]); err != nil || n != *s.Completions {
		t.Errorf("TTFTLAB_SHARDS %q, completions %d: each shard must know the count", env["TTFTLAB_SHARDS"], *s.Completions)
	}
	claims := map[string]bool{}
	for _, v := range s.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != "" {
			claims[v.Name] = true
		}
	}
	mounted := ""
	for _, vm := range c.VolumeMounts {
		if claims[vm.Name] {
			mounted = vm.MountPath
		}
	}
	if mounted != "/results" {
		t.Errorf("no claim mounted at /results (mounts %+v, claims %v)", c.VolumeMounts, claims)
	}
	if len(c.Args) == 0 || c.Args[0] != "load" || c.Image == "" {
		t.Fatalf("image %q, args %q: want the load command", c.Image, c.Args)
	}
	args := " " + strings.Join(c.Args, " ") + " "
	if !strings.Contains(args, " --duration ") || !strings.Contains(args, " --out "+mounted+"/") {
		t.Errorf("args %q: want --duration and --out under %s", c.Args, mounted)
	}
	_, usage, _ := runCLI("load", "-h")
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--") && !strings.Contains(usage, "  -"+strings.TrimPrefix(a, "--")+" ") &&
			!strings.Contains(usage, "  -"+strings.TrimPrefix(a, "--")+"\n") {
			t.Errorf("the manifest passes %s, which ttftlab load does not have", a)
		}
	}
}
