package demoengine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// play starts a scenario of the story in the background; one at a time.
func (c *webControls) play(name string) (string, error) {
	names, ok := findScenario(name)
	if !ok {
		return "", fmt.Errorf("demo: unknown scenario %q (known: %s)", name, strings.Join(scenarioNames(), ", "))
	}
	c.mu.Lock()
	if c.scenario != "" {
		playing := c.scenario
		c.mu.Unlock()
		return "", fmt.Errorf("demo: scenario %q is still playing", playing)
	}
	c.scenario = name
	c.mu.Unlock()
	s := &story{srv: c.srv, w: c.w, n: c.n, g: c.w.g, foos: c.storyFoos, deps: c.storyDeps, pause: 1500 * time.Millisecond}
	c.scenarios.Go(func() {
		defer func() {
			c.mu.Lock()
			c.scenario = ""
			c.mu.Unlock()
		}()
		err := c.playChapters(s, names)
		var end string
		switch {
		case err == nil:
			end = fmt.Sprintf("Scenario %q: the end.", name)
		case errors.Is(err, context.Canceled):
			return
		default:
			end = fmt.Sprintf("Scenario %q stopped: %v", name, err)
		}
		c.story(end, "")
		c.n.say("\n%s", end)
	})
	return fmt.Sprintf("playing scenario %q", name), nil
}

func (c *webControls) playChapters(s *story, names []string) error {
	all := chapters()
	num := 0
	for _, name := range names {
		if name == "initial" {
			continue // the page started with it
		}
		ch := all[name]
		num++
		c.story(fmt.Sprintf("Chapter %d: %s", num, ch.title), ch.explanation)
		s.n.chapter(num, ch.title, ch.explanation)
		if err := ch.play(s, c.runCtx); err != nil {
			return err
		}
		if err := s.sleep(c.runCtx, s.pause); err != nil {
			return err
		}
	}
	return nil
}

func (c *webControls) story(title, explanation string) {
	text := title
	if explanation != "" {
		text += " — " + explanation
	}
	c.rec.Publish(pipelineweb.Event{Op: pipelineweb.OpStory, Tag: pipelineweb.TagStory, Text: text})
}
