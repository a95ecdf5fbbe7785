// Command greeter prints a greeting.
package main

import "fmt"

func main() {
	fmt.Println("Hello from the greeter!")
}
