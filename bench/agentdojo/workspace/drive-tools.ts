// The user's cloud drive in AgentDojo's workspace suite. Files are the user's data, but some are shared
// with the user and written by others (AgentDojo plants injections in them), so reads of content are
// `outside`; sharing a file hands it to anyone, so it is open-world; deleting is destructive.
import 'reflect-metadata';
import {
  Destructive,
  Labels,
  NoArguments,
  OpenWorld,
  OutsideFields,
  ReadOnly,
  Tool,
  Toolset,
} from '../../../src/index.js';
import { World } from '../suite.js';
import {
  AppendArgs,
  FileIdArgs,
  FilenameArgs,
  nextId,
  NewFileArgs,
  QueryArgs,
  ShareArgs,
  type DriveFile,
  type WorkspaceEnvironment,
} from './environment.js';

@Toolset('drive')
export class DriveTools {
  constructor(private readonly world: World<WorkspaceEnvironment>) {}

  private get drive(): WorkspaceEnvironment['cloud_drive'] {
    return this.world.env.cloud_drive;
  }

  private file(id: string): DriveFile {
    const file = this.drive.files.find((f) => f.id_ === id);
    if (file === undefined) throw new Error(`File with ID '${id}' not found.`);
    return file;
  }

  /** A change's time: the day the calendar says it is, later than any fixture time that day. */
  private now(): string {
    return `${this.world.env.calendar.current_day}T23:59:59`;
  }

  // It answers with the file, whose content and name its owner wrote: outside, as a read of it is.
  @Tool({ description: 'Add text at the end of a file.' })
  @Labels('outside')
  @OutsideFields('content', 'filename')
  appendToFile(args: AppendArgs) {
    this.world.record('append_to_file', args);
    const file = this.file(args.file_id);
    file.content += args.content;
    file.size = file.content.length;
    file.last_modified = this.now();
    return file;
  }

  // A file's content and name are written by its owner, who may be anyone who shares it with the user
  // (AgentDojo's drive_* injections are in contents). Its id, owner, sharing, size and date are the drive's.
  @Tool({ description: 'Find files whose name holds the text.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].content', '[].filename')
  searchFilesByFilename(args: FilenameArgs) {
    this.world.record('search_files_by_filename', args);
    const q = args.filename.toLowerCase();
    return this.drive.files.filter((f) => f.filename.toLowerCase().includes(q));
  }

  @Tool({ description: 'Create a file.' })
  createFile(args: NewFileArgs) {
    this.world.record('create_file', args);
    const file: DriveFile = {
      id_: nextId(this.drive.files),
      filename: args.filename,
      content: args.content,
      owner: this.drive.account_email,
      last_modified: this.now(),
      shared_with: {},
      size: args.content.length,
    };
    this.drive.files.push(file);
    return file;
  }

  // It answers with the file, whose content and name its owner wrote: outside, as a read of it is.
  @Tool({ description: 'Delete a file.' })
  @Destructive()
  @Labels('outside')
  @OutsideFields('content', 'filename')
  deleteFile(args: FileIdArgs) {
    this.world.record('delete_file', args);
    this.file(args.file_id);
    const at = this.drive.files.findIndex((f) => f.id_ === args.file_id);
    return this.drive.files.splice(at, 1)[0]!;
  }

  // A file's content and name are written by its owner, who may be anyone who shares it with the user
  // (AgentDojo's drive_* injections are in contents). Its id, owner, sharing, size and date are the drive's.
  @Tool({ description: 'Get a file by its id.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('content', 'filename')
  getFileById(args: FileIdArgs) {
    this.world.record('get_file_by_id', args);
    return this.file(args.file_id);
  }

  // A file's content and name are written by its owner, who may be anyone who shares it with the user
  // (AgentDojo's drive_* injections are in contents). Its id, owner, sharing, size and date are the drive's.
  @Tool({ description: 'List every file.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].content', '[].filename')
  listFiles(_args: NoArguments) {
    this.world.record('list_files', {});
    return this.drive.files;
  }

  // It answers with the file, whose content and name its owner wrote: outside, as a read of it is.
  @Tool({ description: "Share a file with someone, 'r' or 'rw'." })
  @OpenWorld()
  @Labels('outside')
  @OutsideFields('content', 'filename')
  shareFile(args: ShareArgs) {
    this.world.record('share_file', args);
    const file = this.file(args.file_id);
    file.shared_with[args.email] = args.permission;
    return file;
  }

  // A file's content and name are written by its owner, who may be anyone who shares it with the user
  // (AgentDojo's drive_* injections are in contents). Its id, owner, sharing, size and date are the drive's.
  @Tool({ description: 'Find files whose content holds the query.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].content', '[].filename')
  searchFiles(args: QueryArgs) {
    this.world.record('search_files', args);
    const q = args.query.toLowerCase();
    const found = this.drive.files.filter((f) => f.content.toLowerCase().includes(q));
    if (found.length === 0)
      throw new Error(`No files found with the given query ('${args.query}'). Try a different search term.`);
    return found;
  }
}
