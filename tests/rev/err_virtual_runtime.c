/* __enzyme_virtualreverse of a vtable pointer known only at run time (an
 * object's first word, loaded from it): refused at load, as Enzyme
 * refuses it (the constant form is tests/rev/cpp_shadow_vtable.cpp). */
void *__enzyme_virtualreverse(void *);
static void *volatile object_word;
int main(void) {
  void *vtable = object_word;
  return __enzyme_virtualreverse(vtable) == 0;
}
