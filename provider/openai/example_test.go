package openai_test

import (
	"context"
	"fmt"
	"log"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/openai"
)

// A model on OpenAI's Chat Completions API, with the key from $OPENAI_API_KEY.
func ExampleNew() {
	m, err := openai.New(openai.Config{Model: "gpt-4.1-mini"})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Say hi in Portuguese")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
}

// An OpenAI-compatible server is reached through its base URL, version path included. Settings
// only that server knows travel in the request body through ExtraBody.
func ExampleNew_compatibleServer() {
	m, err := openai.New(openai.Config{BaseURL: "http://localhost:8000/v1", Model: "Qwen/Qwen3-8B"})
	if err != nil {
		log.Fatal(err)
	}
	stream := m.Stream(context.Background(), &chat.Prompt{
		Messages: []chat.Message{chat.User("Name three rivers.")},
		Options: &chat.Options{Extra: map[string]any{
			openai.ExtraBody: map[string]any{"top_k": 20, "chat_template_kwargs": map[string]any{"enable_thinking": false}},
		}},
	})
	for chunk, err := range stream {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(chunk.Text())
	}
}

// A reasoning model on the Responses API without storage (zero data retention): reasoning
// comes back encrypted and is sent back with the tool calls it led to. Tools are sent in strict
// mode.
func ExampleNewResponses() {
	m, err := openai.NewResponses(openai.Config{Model: "gpt-5-mini", Store: chat.Ptr(false), StrictTools: true})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Call(context.Background(), &chat.Prompt{
		Messages: []chat.Message{chat.User("What is 12 + 7?")},
		Options:  &chat.Options{Extra: map[string]any{openai.ExtraReasoningEffort: "low", openai.ExtraReasoningSummary: "auto"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range resp.Result().Message.Reasoning {
		fmt.Println("thought:", r.Text)
	}
	fmt.Println(resp.Text())
}

// A deployment on Azure OpenAI through the v1 API, authenticated with a key. For Microsoft Entra
// ID, set Azure.TokenCredential to a credential of github.com/Azure/azure-sdk-for-go/sdk/azidentity
// (azidentity.NewDefaultAzureCredential) instead of APIKey.
func ExampleNew_azure() {
	m, err := openai.New(openai.Config{Azure: &openai.Azure{
		Endpoint:   "https://my-resource.openai.azure.com",
		Deployment: "gpt-5-mini",
		APIKey:     "…",
	}})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Say hi in Portuguese")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
}
